// The signer page: loads what the link gives access to, shows the document with the signer's
// boxes, and lets the signer sign (drawn or typed, with consent) or reject with a reason.
import { useEffect, useMemo, useState } from 'react';
import { PageLoading } from './components/PageLoading';
import { SigningSection } from './components/SigningSection';
import { usePageData } from './use-page-data';
import { useSigningActions } from './use-signing-actions';
import { getInfo, reject, sign, type Signature } from './api';
import { ErrorBanner } from './components/ErrorBanner';
import { RejectedView, SignedView, StateView } from './components/Outcome';
import { PdfViewer } from './components/PdfViewer';
import { SignersList } from './components/SignersList';
import { browserLang, dictionaries, I18n } from './i18n';
import { isSetLocation } from './set-api';
import { SetApp } from './SetApp';

/** Document states in which nobody can sign any more (signing-session.ts). */
const CLOSED = new Set(['completed', 'rejected', 'expired', 'cancelled', 'deleted', 'draft']);

/** /sign/set/{token} is a document set signed in one visit (SetApp.tsx); /sign/{token} one document. */
export function App({ token }: { token: string }) {
  return isSetLocation() ? <SetApp token={token} /> : <DocumentApp token={token} />;
}

function DocumentApp({ token }: { token: string }) {
  const { info, setInfo, loadError, load } = usePageData(() => getInfo(token), token);
  const { error, setError, busy, rejectOpen, setRejectOpen, status, setStatus, run } = useSigningActions(load);
  const [signature, setSignature] = useState<Signature | null>(null);
  const [consent, setConsent] = useState(false);
  const [pdfVersion, setPdfVersion] = useState(0);

  const lang = info?.language ?? browserLang();
  const i18n = useMemo(() => ({ lang, t: dictionaries[lang] }), [lang]);
  const { t } = i18n;

  useEffect(() => {
    document.documentElement.lang = lang;
    document.title = info ? `${info.document.name} · ${t.title}` : t.title;
  }, [lang, info, t]);

  const doSign = async () => {
    if (!signature || !consent || busy) {
      return;
    }
    await run('sign', t.signing, async () => {
      const result = await sign(token, signature);
      setInfo(
        (prev) =>
          prev && {
            ...prev,
            document: { ...prev.document, status: result.document_status },
            signer: { ...prev.signer, status: 'signed', signed_at: result.signed_at },
          },
      );
      setStatus(`${t.signedTitle}. ${result.document_status === 'completed' ? t.completedAll : t.waitingOthers}`);
      setPdfVersion((v) => v + 1);
      void load();
    });
  };

  const doReject = (reason: string) =>
    run('reject', t.rejecting, async () => {
      const result = await reject(token, reason);
      setInfo(
        (prev) =>
          prev && {
            ...prev,
            document: { ...prev.document, status: result.document_status },
            signer: { ...prev.signer, status: 'rejected' },
          },
      );
      setStatus(t.rejectedByYou);
    });

  let body: React.ReactNode;
  if (!info) {
    body = (
      <PageLoading
        error={loadError}
        invalid={(e) => e.code === 'SIGNING_LINK_INVALID'}
        onRetry={() => void load()}
        texts={{ loading: t.loading, retry: t.retry, invalidTitle: t.linkInvalidTitle, invalidText: t.linkInvalid }}
      />
    );
  } else {
    body = signerPage();
  }

  // A plain function, not a component: the pad and the form keep their state across renders.
  function signerPage() {
    const s = info!;
    const viewer = <PdfViewer token={token} pages={s.pages} boxes={s.boxes} version={pdfVersion} signed={s.signer.status === 'signed'} />;
    if (s.signer.status === 'signed') {
      return (
        <>
          <SignedView token={token} name={s.document.name} signedAt={s.signer.signed_at} documentStatus={s.document.status} />
          <SignersList signers={s.signers} />
          {viewer}
        </>
      );
    }
    if (s.signer.status === 'rejected') {
      return <RejectedView />;
    }
    const closed = CLOSED.has(s.document.status) ? t.state[s.document.status] : undefined;
    if (closed) {
      return <StateView title={closed[0]} text={closed[1]} state={s.document.status} />;
    }
    const available = s.signer.authority === 'EMAIL_LINK' || s.signer.authority === 'EMAIL';
    const needsCode = s.signer.authority === 'EMAIL' && !s.signer.verified;
    const canSign = signature !== null && consent && busy === null;
    return (
      <>
        <p className="box-hint">{t.boxHint(s.boxes.length)}</p>
        {viewer}
        <SignersList signers={s.signers} />
        <SigningSection
          token={token}
          signer={s.signer}
          available={available}
          needsCode={needsCode}
          onCodeError={(e) => setError(e)}
          onVerified={() => {
            setError(null);
            setStatus(t.codeVerified);
            setInfo((prev) => prev && { ...prev, signer: { ...prev.signer, verified: true } });
          }}
          onSignature={setSignature}
          consent={consent}
          onConsent={setConsent}
          busy={busy}
          canSign={canSign}
          signLabel={busy === 'sign' ? t.signing : t.sign}
          onSign={() => void doSign()}
          rejectOpen={rejectOpen}
          onRejectOpen={setRejectOpen}
          onReject={(r) => void doReject(r)}
        />
      </>
    );
  }

  const signable = info && info.signer.status !== 'signed' && info.signer.status !== 'rejected' && !CLOSED.has(info.document.status);
  return (
    <I18n.Provider value={i18n}>
      {signable && (
        <a className="skip-link" href="#signing">
          {t.skipToSign}
        </a>
      )}
      <header className="header">
        <span className="brand" aria-hidden="true">
          Sello
        </span>
        <h1 className="doc-name">{info ? info.document.name : t.title}</h1>
      </header>
      <main className="main">
        {error && <ErrorBanner error={error} onDismiss={() => setError(null)} />}
        {body}
      </main>
      <div className="visually-hidden" role="status" aria-live="polite" data-testid="live-status">
        {status}
      </div>
    </I18n.Provider>
  );
}
