// What the account can do to one document from its page, each through a panel endpoint that calls
// the HMAC API's use case: resend an invitation or correct a signer (per signer: name, authority and
// its data), extend the expiration or cancel the workflow, delete or restore. Irreversible ones ask
// first; every result or refusal is said in words (a status line, a field's error, or the error
// banner with the server's message).
import { type FormEvent, useState } from 'react';
import { AUTHORITIES, type Authority, normalizeSignerData } from '../../../src/domain/documents/authorities.js';
import type { SignerUpdateResult } from '../../../src/schemas/workflows.js';
import { api, type DocumentPageData, type ListedDocument } from './api';
import { SelectField, TextField } from './fields';
import { formatDateTimeInZone, usePanelI18n } from './panel-i18n';
import { ErrorBox, ShownOnce } from './widgets';

type Signer = ListedDocument['signers'][number];

/** Runs one action: asks first when told to, then shows its result or its error, and reloads. */
export function useAction(reload: () => void) {
  const [status, setStatus] = useState('');
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const run = async (action: () => Promise<unknown>, done: string, confirmText?: string): Promise<boolean> => {
    if (confirmText && !window.confirm(confirmText)) {
      return false;
    }
    setBusy(true);
    setError(null);
    setStatus('');
    try {
      await action();
      setStatus(done);
      reload();
      return true;
    } catch (err) {
      setError(err);
      return false;
    } finally {
      setBusy(false);
    }
  };
  return { status, error, busy, run, dismiss: () => setError(null) };
}

export type Action = ReturnType<typeof useAction>;

export function ActionResult({ action }: { action: Action }) {
  return (
    <>
      <ErrorBox error={action.error} onDismiss={action.dismiss} />
      <p role="status" className="hint" data-testid="action-status">
        {action.status}
      </p>
    </>
  );
}

const isOpen = (s: Signer) => s.status !== 'signed' && s.status !== 'rejected';

/** What kind of identifier an authority's data is, for its input, hint and error. */
const dataKind = (a: Authority) => (a === 'EMAIL' || a === 'EMAIL_LINK' ? 'email' : a === 'SAT' ? 'rfc' : 'phone');
const INPUT_TYPE = { email: 'email', phone: 'tel', rfc: 'text' } as const;

/**
 * Whether the service itself takes a corrected signer's new link to them: the flow it runs invites
 * them (now, or at their turn in an ordered flow) by phone, or by email when it has an address. A
 * SAT signer without an email, or a document whose links the client hands out, gets nothing: the
 * old link is dead, so the page must show the new one.
 */
const serviceDelivers = (data: DocumentPageData, r: SignerUpdateResult) =>
  data.workflow.in_set ||
  (data.workflow.started && (r.signer.authority === 'SMS' || r.signer.authority === 'WHATSAPP' || r.signer.email !== null));

/** The buttons beside one signer, and the correction form when it is open. */
export function SignerActions({ data, signer, action }: { data: DocumentPageData; signer: Signer; action: Action }) {
  const { t } = usePanelI18n();
  const [editing, setEditing] = useState(false);
  const [name, setName] = useState(signer.name ?? '');
  const [authority, setAuthority] = useState(signer.authority as Authority);
  const [value, setValue] = useState(signer.data);
  // Whether the data broke its authority's rule at the last try; said in the page's language.
  const [dataWrong, setDataWrong] = useState(false);
  // The new link of the last correction, when nobody else will take it to the signer.
  const [newLink, setNewLink] = useState<string | null>(null);
  const d = data.document;
  if (!isOpen(signer) || (d.status !== 'pending' && d.status !== 'draft')) {
    return null;
  }
  const who = signer.name ?? signer.data;
  // Invited signers only: in an ordered flow a later signer's turn has not come.
  const canResend = data.workflow.started && !data.workflow.in_set && d.status === 'pending' && signer.status !== 'pending';
  const id = `fix-${signer.signer_id}`;
  const kind = dataKind(authority);
  const chooseAuthority = (next: Authority) => {
    setAuthority(next);
    // Another kind of identifier starts empty; back to the signer's own, the signer's own data.
    if (next === signer.authority) {
      setValue(signer.data);
    } else if (dataKind(next) !== kind) {
      setValue('');
    }
    setDataWrong(false);
  };
  const save = async (e: FormEvent) => {
    e.preventDefault();
    // The service's own check of the data for the authority, so the person sees it at the field;
    // the server checks again with the same function.
    const checked = normalizeSignerData(authority, value);
    if (!checked.ok) {
      setDataWrong(true);
      return;
    }
    setDataWrong(false);
    const body: Record<string, string> = {};
    if (name.trim() !== (signer.name ?? '')) {
      body.name = name.trim();
    }
    if (authority !== signer.authority) {
      // A new authority needs its data, even when the text is the same (EMAIL_LINK to EMAIL).
      body.authority = authority;
      body.data = checked.value;
    } else if (checked.value !== signer.data) {
      body.data = checked.value;
    }
    let answer: SignerUpdateResult | undefined;
    const ok = await action.run(
      async () => {
        answer = await api.updateSigner(d.document_ticket, signer.signer_id, body);
      },
      t.signerCorrected(who),
      t.confirmCorrect(who),
    );
    if (ok) {
      setEditing(false);
      setNewLink(answer && !serviceDelivers(data, answer) ? answer.signer.signer_url : null);
    }
  };
  return (
    <div className="signer-actions">
      <div className="row-actions">
        {canResend && (
          <button
            type="button"
            className="button button-secondary button-small"
            disabled={action.busy}
            aria-label={`${t.resend}: ${who}`}
            onClick={() => action.run(() => api.resendInvitation(d.document_ticket, signer.signer_id), t.resent(who))}
          >
            {t.resend}
          </button>
        )}
        <button
          type="button"
          className="button button-secondary button-small"
          aria-expanded={editing}
          aria-controls={id}
          aria-label={`${t.correct}: ${who}`}
          onClick={() => {
            if (!editing) {
              // The form opens on the signer as the page shows it now (after an earlier correction too).
              setName(signer.name ?? '');
              setAuthority(signer.authority as Authority);
              setValue(signer.data);
              setDataWrong(false);
            }
            setEditing(!editing);
          }}
        >
          {t.correct}
        </button>
      </div>
      {newLink && <ShownOnce label={t.newSignerLink(who)} value={newLink} testId="new-signer-link" />}
      {editing && (
        <form id={id} className="form correct-form" onSubmit={save} noValidate>
          <TextField id={`${id}-name`} label={t.signerName} value={name} maxLength={200} onChange={(e) => setName(e.target.value)} />
          <SelectField
            id={`${id}-authority`}
            label={t.signerAuthority}
            value={authority}
            onChange={(e) => chooseAuthority(e.target.value as Authority)}
          >
            {AUTHORITIES.map((a) => (
              <option key={a} value={a}>
                {t.authorities[a]}
              </option>
            ))}
          </SelectField>
          <TextField
            id={`${id}-data`}
            label={t.signerData(authority)}
            hint={t.dataHint[kind]}
            error={dataWrong ? t.dataInvalid[kind] : undefined}
            type={INPUT_TYPE[kind]}
            value={value}
            maxLength={254}
            onChange={(e) => {
              setValue(e.target.value);
              setDataWrong(false);
            }}
          />
          <div className="actions">
            <button type="submit" className="button button-primary button-small" disabled={action.busy}>
              {t.saveCorrection}
            </button>
          </div>
        </form>
      )}
    </div>
  );
}

/** The workflow (expiration, cancel) and delete or restore. */
export function DocumentActions({ data, action }: { data: DocumentPageData; action: Action }) {
  const { t, lang } = usePanelI18n();
  const [date, setDate] = useState('');
  const d = data.document;
  const ticket = d.document_ticket;
  const running = d.status === 'pending' && data.workflow.started && !data.workflow.in_set;
  const zone = data.workflow.time_zone;
  const extend = (e: FormEvent) => {
    e.preventDefault();
    void action.run(() => api.updateWorkflow(ticket, { expiration_date: date }), t.expirationSet);
  };
  return (
    <div className="card" data-testid="document-actions">
      <h2 className="section-title">{t.actionsTitle}</h2>
      {data.workflow.in_set ? (
        <p className="muted">{t.flowOfSet}</p>
      ) : running ? (
        <>
          {/* The date is the end of a day in the account's time zone (decisions.md), whatever the
              computer's: said where it is picked and where it is shown. */}
          <p data-testid="expires-at">
            {data.workflow.expires_at ? t.expiresAt(formatDateTimeInZone(data.workflow.expires_at, lang, zone)) : t.noExpiration}
          </p>
          <form className="form extend-form" onSubmit={extend}>
            <TextField
              id="new-expiration"
              label={t.newExpiration}
              hint={t.expirationHint(zone)}
              type="date"
              required
              value={date}
              onChange={(e) => setDate(e.target.value)}
            />
            <button type="submit" className="button button-secondary" disabled={action.busy || !date}>
              {t.setExpiration}
            </button>
          </form>
        </>
      ) : (
        d.status === 'pending' && <p className="muted">{t.noFlow}</p>
      )}
      <div className="actions">
        {running && (
          <button
            type="button"
            className="button button-danger"
            disabled={action.busy}
            data-testid="cancel-workflow"
            onClick={() => action.run(() => api.updateWorkflow(ticket, { cancel: true }), t.cancelled, t.confirmCancel)}
          >
            {t.cancelWorkflow}
          </button>
        )}
        {d.status === 'deleted' ? (
          <button
            type="button"
            className="button button-secondary"
            disabled={action.busy}
            onClick={() => action.run(() => api.restoreDocument(ticket), t.restored)}
          >
            {t.restore}
          </button>
        ) : (
          <button
            type="button"
            className="button button-secondary"
            disabled={action.busy}
            onClick={() => action.run(() => api.deleteDocument(ticket), t.deleted)}
          >
            {t.deleteDocument}
          </button>
        )}
      </div>
    </div>
  );
}
