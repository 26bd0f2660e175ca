// The signer page: loads what the link gives access to, shows the document with the signer's
// boxes, and lets the signer sign (drawn or typed, with consent) or reject with a reason.
import { useState } from 'react';
import { documentDict, PageShell, usePageI18n } from './components/PageShell';
import { SigningSection } from './components/SigningSection';
import { usePageData } from './use-page-data';
import { useSigningActions } from './use-signing-actions';
import { getInfo, reject, sign, type Signature } from './api';
import { RejectedView, SignedView, StateView } from './components/Outcome';
import { PdfViewer } from './components/PdfViewer';
import { SignersList } from './components/SignersList';
import { ActionBar } from './components/ActionBar';
import { SenderCard } from './components/SenderCard';
import { isSetLocation } from './set-api';
import { SetApp } from './SetApp';
import { EfirmaSection } from './components/EfirmaSection';
import { signingMode } from './proof';
import { IdentityStep } from './components/IdentityStep';
import { EndorsementCard } from './components/EndorsementCard';

/** Document states in which nobody can sign any more (signing-session.ts). */
const CLOSED = new Set(['completed', 'rejected', 'expired', 'cancelled', 'deleted', 'draft']);

/** Whether the link can no longer sign: an endorser's link signs a completed document, and only that. */
function isClosed(info: { document: { status: string }; endorsement: unknown }): boolean {
  return info.endorsement ? info.document.status !== 'completed' : CLOSED.has(info.document.status);
}

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

  const i18n = usePageI18n(info?.language, documentDict, info?.default_language);
  const { t } = i18n;

  const doSign = async () => {
    if (!signature || !consent || busy) {
      return;
    }
    await run('sign', t.signing, async () => {
      signed(await sign(token, signature, i18n.lang));
    });
  };

  const signed = (result: { document_status: string; signed_at: string }) => {
    setInfo(
      (prev) =>
        prev && {
          ...prev,
          document: { ...prev.document, status: result.document_status },
          signer: { ...prev.signer, status: 'signed', signed_at: result.signed_at },
        },
    );
    const done = info?.endorsement ? t.endorsementSigned : result.document_status === 'completed' ? t.completedAll : t.waitingOthers;
    setStatus(`${t.signedTitle}. ${done}`);
    setPdfVersion((v) => v + 1);
    void load();
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

  // A plain function, not a component: the pad and the form keep their state across renders.
  function signerPage() {
    const s = info!;
    const signable = s.signer.status !== 'signed';
    const viewer = (
      <PdfViewer token={token} pages={s.pages} boxes={s.boxes} version={pdfVersion} signed={!signable} nextBoxElsewhere={signable} />
    );
    const sender = (
      <>
        <SenderCard sender={s.sender} message={s.message} signer={s.signer} />
        {s.endorsement && <EndorsementCard endorsement={s.endorsement} />}
      </>
    );
    if (s.signer.status === 'signed') {
      return (
        <>
          <SignedView
            token={token}
            name={s.document.name}
            signedAt={s.signer.signed_at}
            documentStatus={s.document.status}
            endorsement={s.endorsement !== null}
          />
          {sender}
          <SignersList signers={s.signers} />
          {viewer}
        </>
      );
    }
    if (s.signer.status === 'rejected') {
      return <RejectedView />;
    }
    const closed = isClosed(s) ? t.state[s.document.status] : undefined;
    if (closed) {
      return <StateView title={closed[0]} text={closed[1]} state={s.document.status} />;
    }
    if (s.signer.identity.required && s.signer.identity.status !== 'verified') {
      // Identity first (IdentityStep.tsx): the pad and the e.firma come once it is approved.
      return (
        <>
          {sender}
          {viewer}
          <SignersList signers={s.signers} />
          <section id="signing" className="signing" aria-label={t.signHeading} tabIndex={-1}>
            <IdentityStep
              token={token}
              language={i18n.lang}
              identity={s.signer.identity}
              busy={busy !== null}
              run={(announce, action) =>
                run('sign', announce, async () => {
                  await action();
                  setStatus('');
                })
              }
              onChanged={() => void load()}
            />
          </section>
        </>
      );
    }
    if (s.signer.proof === 'efirma') {
      // The SAT signer signs with their own e.firma, read in this page (EfirmaStep.tsx).
      return (
        <>
          {sender}
          <p className="box-hint">{t.boxHint(s.boxes.length)}</p>
          {viewer}
          <SignersList signers={s.signers} />
          <EfirmaSection
            token={token}
            rfc={s.signer.rfc ?? ''}
            language={i18n.lang}
            busy={busy !== null}
            run={(action) => run('sign', t.signing, action)}
            onSigned={signed}
            heading={t.signHeading}
            rejectLabel={t.reject}
            rejectOpen={rejectOpen}
            onRejectOpen={setRejectOpen}
            rejecting={busy === 'reject'}
            onReject={(r) => void doReject(r)}
          />
        </>
      );
    }
    const { available, needsCode } = signingMode(s.signer);
    const canSign = signature !== null && consent && busy === null;
    return (
      <>
        {sender}
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
          externalActions
        />
        {available && (
          <ActionBar
            boxes={s.boxes.length}
            canSign={canSign && !needsCode}
            busy={busy !== null}
            signLabel={busy === 'sign' ? t.signing : t.sign}
            onReject={() => setRejectOpen(true)}
          />
        )}
      </>
    );
  }

  // The sender withdrew the endorsement this link signs: the API refuses every use of the link, on
  // the first load or on a later one (after a refused signature), and the page says so.
  const withdrawn = loadError?.code === 'ENDORSEMENT_WITHDRAWN';
  const signable = !withdrawn && info && info.signer.status !== 'signed' && info.signer.status !== 'rejected' && !isClosed(info);
  return (
    <PageShell
      i18n={i18n}
      heading={info ? info.document.name : t.title}
      documentTitle={info ? `${info.document.name} · ${t.title}` : t.title}
      skipToSign={!!signable}
      load={{
        loaded: info !== null || withdrawn,
        error: loadError,
        invalid: (e) => e.code === 'SIGNING_LINK_INVALID',
        onRetry: () => void load(),
        texts: { loading: t.loading, retry: t.retry, invalidTitle: t.linkInvalidTitle, invalidText: t.linkInvalid },
      }}
      error={withdrawn ? null : error}
      onDismissError={() => setError(null)}
      status={status}
    >
      {withdrawn ? (
        <StateView title={t.endorsementWithdrawnTitle} text={t.endorsementWithdrawn} state="endorsement-withdrawn" />
      ) : (
        info && signerPage()
      )}
    </PageShell>
  );
}
