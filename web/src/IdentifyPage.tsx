// The page behind document_url (/document/{ticket}): the document with every box outlined and
// labelled; the signer chooses their box (on the page or in the list), types their email address
// (their phone number for an SMS or WhatsApp box), and is told that a personal link was sent if it
// is that box's signer's. The server gives
// the same answer either way, so the page never says whether the address matched.
import { useEffect, useRef, useState } from 'react';
import { documentDict, PageShell, usePageI18n } from './components/PageShell';
import { asApiError, usePageData } from './use-page-data';
import { ApiError } from './api';
import { StateView } from './components/Outcome';
import { PdfViewer, type ViewerBox } from './components/PdfViewer';
import { getDocumentPage, requestLink, type DocumentPage } from './document-api';
import './identify.css';

/** Document states in which nobody can sign any more (signing-session.ts). */
const CLOSED = new Set(['completed', 'rejected', 'expired', 'cancelled', 'deleted', 'draft']);
/** Whether the box's signer can be sent a link here (the server says with what: email or phone). */
const linkable = (b: Box) => b.signer.link_by !== null;

type Box = DocumentPage['boxes'][number];

/** A box nobody can ask a link for: its signer already acted, or their authority cannot be proven here. */
const unavailable = (b: Box) => !linkable(b) || b.signer.status === 'signed' || b.signer.status === 'rejected';

export function IdentifyPage({ ticket }: { ticket: string }) {
  const { info, loadError, load } = usePageData(() => getDocumentPage(ticket), ticket);
  const [error, setError] = useState<ApiError | null>(null);
  const [chosen, setChosen] = useState<string | null>(null);
  const [email, setEmail] = useState('');
  const [fieldError, setFieldError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [sentFor, setSentFor] = useState<{ label: string; byPhone: boolean } | null>(null);
  const emailRef = useRef<HTMLInputElement>(null);
  const outcomeRef = useRef<HTMLHeadingElement>(null);

  const i18n = usePageI18n(info?.language, documentDict);
  const { t } = i18n;
  const ti = t.identify;

  useEffect(() => {
    if (sentFor !== null) {
      outcomeRef.current?.focus();
    }
  }, [sentFor]);

  const pagesOf = (b: Box) => ti.pages([b.page + 1]);
  const chosenBox = info?.boxes.find((b) => b.sticker_id === chosen);
  /** The chosen box's signer is reached by phone: the field asks for a number. */
  const byPhone = chosenBox?.signer.link_by === 'phone';

  /** Chosen on the document: the form is where the next step is. */
  const chooseOnPage = (id: string) => {
    setChosen(id);
    setFieldError(null);
    emailRef.current?.focus();
  };

  const submit = async () => {
    if (!chosenBox) {
      setFieldError(ti.chooseFirst);
      return;
    }
    if (email.trim() === '') {
      setFieldError(byPhone ? ti.phoneRequired : ti.emailRequired);
      emailRef.current?.focus();
      return;
    }
    setFieldError(null);
    setError(null);
    setBusy(true);
    try {
      await requestLink(ticket, chosenBox.sticker_id, email.trim());
      setSentFor({ label: chosenBox.signer.label, byPhone });
    } catch (err) {
      const e = asApiError(err);
      setError(e);
      // The document or a signer changed under the page: show what it is now.
      if (e.status === 409 || e.status === 404) {
        void load();
      }
    } finally {
      setBusy(false);
    }
  };

  let body: React.ReactNode;
  if (!info) {
    body = null; // the shell shows the loading, failed or not-found state
  } else if (CLOSED.has(info.document.status)) {
    const [title, text] = t.state[info.document.status];
    body = <StateView title={title} text={text} state={info.document.status} />;
  } else if (sentFor !== null) {
    body = (
      <section className="outcome outcome-sent" aria-labelledby="sent-title" data-testid="link-sent">
        <h2 ref={outcomeRef} id="sent-title" tabIndex={-1} className="outcome-title">
          {sentFor.byPhone ? ti.sentTitlePhone : ti.sentTitle}
        </h2>
        <p>{sentFor.byPhone ? ti.sentPhone(sentFor.label) : ti.sent(sentFor.label)}</p>
        <button type="button" className="button button-secondary" onClick={() => setSentFor(null)}>
          {ti.again}
        </button>
      </section>
    );
  } else {
    const viewerBoxes: ViewerBox[] = info.boxes.map((b) => ({
      page: b.page,
      rect: b.rect,
      label: b.signer.label,
      selected: b.sticker_id === chosen,
      disabled: unavailable(b),
      onSelect: () => chooseOnPage(b.sticker_id),
    }));
    body = (
      <>
        <p className="box-hint">{ti.intro}</p>
        <form
          className="identify"
          noValidate
          onSubmit={(e) => {
            e.preventDefault();
            void submit();
          }}
        >
          <fieldset className="identify-boxes">
            <legend className="section-title">{ti.chooseLegend}</legend>
            <p className="hint">{ti.chooseHint}</p>
            <ul>
              {info.boxes.map((b) => {
                const off = unavailable(b);
                const note = !linkable(b) ? ti.unavailable : (t.signerStatus[b.signer.status] ?? b.signer.status);
                return (
                  <li key={b.sticker_id} className={b.sticker_id === chosen ? 'identify-option identify-chosen' : 'identify-option'}>
                    <input
                      type="radio"
                      id={`box-${b.sticker_id}`}
                      name="box"
                      value={b.sticker_id}
                      checked={b.sticker_id === chosen}
                      disabled={off || busy}
                      onChange={() => {
                        setChosen(b.sticker_id);
                        setFieldError(null);
                      }}
                    />
                    <label htmlFor={`box-${b.sticker_id}`}>
                      <span className="identify-label">{ti.option(b.signer.label, pagesOf(b))}</span>
                      <span className={linkable(b) ? `badge badge-${b.signer.status}` : 'badge'}>{note}</span>
                    </label>
                  </li>
                );
              })}
            </ul>
          </fieldset>
          <label className="field-label" htmlFor="identify-email">
            {byPhone ? ti.phoneLabel : ti.emailLabel}
          </label>
          <input
            ref={emailRef}
            id="identify-email"
            className="text-input"
            type={byPhone ? 'tel' : 'email'}
            inputMode={byPhone ? 'tel' : 'email'}
            autoComplete={byPhone ? 'tel' : 'email'}
            maxLength={254}
            value={email}
            onChange={(e) => setEmail(e.target.value)}
            disabled={busy}
            aria-describedby={fieldError ? 'identify-error' : undefined}
          />
          <p className="field-error" id="identify-error" role="alert">
            {fieldError ?? ''}
          </p>
          <div className="actions">
            <button type="submit" className="button button-primary" disabled={busy}>
              {busy ? ti.sending : ti.submit}
            </button>
          </div>
        </form>
        <p className="notice">{ti.outlineNote}</p>
        <PdfViewer token="" outlineOnly pages={info.pages} boxes={viewerBoxes} version={0} />
      </>
    );
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
      onDismissError={() => setError(null)}
    >
      {body}
    </PageShell>
  );
}
