// What the account can do to one document from its page, each through a panel endpoint that calls
// the HMAC API's use case: resend an invitation or correct a signer (per signer: name, authority and
// its data), extend the expiration or cancel the workflow, delete or restore. Irreversible ones ask
// first; every result or refusal is said in words (a status line, a field's error, or the error
// banner with the server's message).
import { type FormEvent, useState } from 'react';
import { AUTHORITIES, type Authority } from '../../../src/domain/documents/authorities.js';
import { api, type DocumentPageData, type ListedDocument } from './api';
import { SelectField, TextField } from './fields';
import { formatDateTimeInZone, usePanelI18n } from './panel-i18n';
import { type SignerCorrection, useSignerCorrection } from './use-signer-correction';
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
const INPUT_TYPE = { email: 'email', phone: 'tel', rfc: 'text' } as const;

/** The buttons beside one signer, and the correction form when it is open. */
export function SignerActions({ data, signer, action }: { data: DocumentPageData; signer: Signer; action: Action }) {
  const { t } = usePanelI18n();
  const correction = useSignerCorrection(data, signer, action);
  const d = data.document;
  if (!isOpen(signer) || (d.status !== 'pending' && d.status !== 'draft')) {
    return null;
  }
  const who = signer.name ?? signer.data;
  // Invited signers only: in an ordered flow a later signer's turn has not come.
  const canResend = data.workflow.started && !data.workflow.in_set && d.status === 'pending' && signer.status !== 'pending';
  const id = `fix-${signer.signer_id}`;
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
          aria-expanded={correction.editing}
          aria-controls={id}
          aria-label={`${t.correct}: ${who}`}
          onClick={correction.toggle}
        >
          {t.correct}
        </button>
      </div>
      {correction.newLink && <ShownOnce label={t.newSignerLink(who)} value={correction.newLink} testId="new-signer-link" />}
      {correction.editing && <CorrectionForm id={id} correction={correction} busy={action.busy} />}
    </div>
  );
}

/** A signer's name, authority and its data, as the correction will send them. */
function CorrectionForm({ id, correction: c, busy }: { id: string; correction: SignerCorrection; busy: boolean }) {
  const { t } = usePanelI18n();
  return (
    <form id={id} className="form correct-form" onSubmit={c.save} noValidate>
      <TextField id={`${id}-name`} label={t.signerName} value={c.name} maxLength={200} onChange={(e) => c.setName(e.target.value)} />
      <SelectField
        id={`${id}-authority`}
        label={t.signerAuthority}
        value={c.authority}
        onChange={(e) => c.chooseAuthority(e.target.value as Authority)}
      >
        {AUTHORITIES.map((a) => (
          <option key={a} value={a}>
            {t.authorities[a]}
          </option>
        ))}
      </SelectField>
      <TextField
        id={`${id}-data`}
        label={t.signerData(c.authority)}
        hint={t.dataHint[c.kind]}
        error={c.dataWrong ? t.dataInvalid[c.kind] : undefined}
        type={INPUT_TYPE[c.kind]}
        value={c.value}
        maxLength={254}
        onChange={(e) => c.setValue(e.target.value)}
      />
      <div className="actions">
        <button type="submit" className="button button-primary button-small" disabled={busy}>
          {t.saveCorrection}
        </button>
      </div>
    </form>
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
