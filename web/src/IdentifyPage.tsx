// The page behind document_url (/document/{ticket}): the document with every box outlined and
// labelled; the signer chooses their box (on the page or in the list), types their email address
// (their phone number for an SMS or WhatsApp box), and is told that a personal link was sent if it
// is that box's signer's. The server gives
// the same answer either way, so the page never says whether the address matched.
import { useEffect, useRef } from 'react';
import { documentDict, PageShell, usePageI18n } from './components/PageShell';
import { usePageData } from './use-page-data';
import { ApiError } from './api';
import { StateView } from './components/Outcome';
import { PdfViewer, type ViewerBox } from './components/PdfViewer';
import { getDocumentPage, type DocumentPage } from './document-api';
import { useI18n } from './i18n';
import { type Box, type LinkRequest, useLinkRequest } from './use-link-request';
import './identify.css';

/** Document states in which nobody can sign any more (signing-session.ts). */
const CLOSED = new Set(['completed', 'rejected', 'expired', 'cancelled', 'deleted', 'draft']);
/** Whether the box's signer can be sent a link here (the server says with what: email or phone). */
const linkable = (b: Box) => b.signer.link_by !== null;

/** A box nobody can ask a link for: its signer already acted, or their authority cannot be proven here. */
const unavailable = (b: Box) => !linkable(b) || b.signer.status === 'signed' || b.signer.status === 'rejected';

export function IdentifyPage({ ticket }: { ticket: string }) {
  const { info, loadError, load } = usePageData(() => getDocumentPage(ticket), ticket);
  const i18n = usePageI18n(info?.language, documentDict);
  const { t } = i18n;
  const ti = t.identify;
  const form = useLinkRequest(ticket, info, ti, load);
  const { error } = form;

  let body: React.ReactNode = null; // without the data, the shell shows the loading, failed or not-found state
  if (info && CLOSED.has(info.document.status)) {
    const [title, text] = t.state[info.document.status];
    body = <StateView title={title} text={text} state={info.document.status} />;
  } else if (info && form.sentFor !== null) {
    body = <LinkSent sentFor={form.sentFor} onAgain={form.again} />;
  } else if (info) {
    body = <ChooseBox info={info} form={form} />;
  }

  return (
    <PageShell
      i18n={i18n}
      heading={info ? info.document.name : ti.title}
      documentTitle={info ? `${info.document.name} · ${ti.title}` : ti.title}
      load={{
        loaded: info !== null,
        error: loadError,
        invalid: (e) => e.status === 404,
        onRetry: () => void load(),
        texts: { loading: t.loading, retry: t.retry, invalidTitle: ti.notFoundTitle, invalidText: ti.notFound },
      }}
      error={error?.code === 'RATE_LIMITED' ? new ApiError(error.status, error.code, ti.rateLimited) : error}
      onDismissError={() => form.setError(null)}
    >
      {body}
    </PageShell>
  );
}

/** The outcome, focused as it appears: a link was sent if the address was that box's signer's. */
function LinkSent({ sentFor, onAgain }: { sentFor: { label: string; byPhone: boolean }; onAgain: () => void }) {
  const ti = useI18n().t.identify;
  const outcomeRef = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    outcomeRef.current?.focus();
  }, []);
  return (
    <section className="outcome outcome-sent" aria-labelledby="sent-title" data-testid="link-sent">
      <h2 ref={outcomeRef} id="sent-title" tabIndex={-1} className="outcome-title">
        {sentFor.byPhone ? ti.sentTitlePhone : ti.sentTitle}
      </h2>
      <p>{sentFor.byPhone ? ti.sentPhone(sentFor.label) : ti.sent(sentFor.label)}</p>
      <button type="button" className="button button-secondary" onClick={onAgain}>
        {ti.again}
      </button>
    </section>
  );
}

/** The form (the boxes as a list, the address) and the document with the boxes to choose on it. */
function ChooseBox({ info, form }: { info: DocumentPage; form: LinkRequest }) {
  const ti = useI18n().t.identify;
  const viewerBoxes: ViewerBox[] = info.boxes.map((b) => ({
    page: b.page,
    rect: b.rect,
    label: b.signer.label,
    selected: b.sticker_id === form.chosen,
    disabled: unavailable(b),
    onSelect: () => form.chooseOnPage(b.sticker_id),
  }));
  return (
    <>
      <p className="box-hint">{ti.intro}</p>
      <form
        className="identify"
        noValidate
        onSubmit={(e) => {
          e.preventDefault();
          void form.submit();
        }}
      >
        <BoxList boxes={info.boxes} form={form} />
        <AddressField form={form} />
        <div className="actions">
          <button type="submit" className="button button-primary" disabled={form.busy}>
            {form.busy ? ti.sending : ti.submit}
          </button>
        </div>
      </form>
      <p className="notice">{ti.outlineNote}</p>
      <PdfViewer token="" outlineOnly pages={info.pages} boxes={viewerBoxes} version={0} />
    </>
  );
}

/** Every box as a radio button, with its signer's state; the unavailable ones disabled. */
function BoxList({ boxes, form }: { boxes: Box[]; form: LinkRequest }) {
  const { t } = useI18n();
  const ti = t.identify;
  return (
    <fieldset className="identify-boxes">
      <legend className="section-title">{ti.chooseLegend}</legend>
      <p className="hint">{ti.chooseHint}</p>
      <ul>
        {boxes.map((b) => {
          const note = !linkable(b) ? ti.unavailable : (t.signerStatus[b.signer.status] ?? b.signer.status);
          return (
            <li key={b.sticker_id} className={b.sticker_id === form.chosen ? 'identify-option identify-chosen' : 'identify-option'}>
              <input
                type="radio"
                id={`box-${b.sticker_id}`}
                name="box"
                value={b.sticker_id}
                checked={b.sticker_id === form.chosen}
                disabled={unavailable(b) || form.busy}
                onChange={() => form.choose(b.sticker_id)}
              />
              <label htmlFor={`box-${b.sticker_id}`}>
                <span className="identify-label">{ti.option(b.signer.label, ti.pages([b.page + 1]))}</span>
                <span className={linkable(b) ? `badge badge-${b.signer.status}` : 'badge'}>{note}</span>
              </label>
            </li>
          );
        })}
      </ul>
    </fieldset>
  );
}

/** The email address, or the phone number when the chosen box's signer is reached by phone. */
function AddressField({ form }: { form: LinkRequest }) {
  const ti = useI18n().t.identify;
  const { byPhone } = form;
  return (
    <>
      <label className="field-label" htmlFor="identify-email">
        {byPhone ? ti.phoneLabel : ti.emailLabel}
      </label>
      <input
        ref={form.emailRef}
        id="identify-email"
        className="text-input"
        type={byPhone ? 'tel' : 'email'}
        inputMode={byPhone ? 'tel' : 'email'}
        autoComplete={byPhone ? 'tel' : 'email'}
        maxLength={254}
        value={form.email}
        onChange={(e) => form.setEmail(e.target.value)}
        disabled={form.busy}
        aria-describedby={form.fieldError ? 'identify-error' : undefined}
      />
      <p className="field-error" id="identify-error" role="alert">
        {form.fieldError ?? ''}
      </p>
    </>
  );
}
