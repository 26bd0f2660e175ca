// The set page (/sign/set/{token}): every document of a set where the signer has a box, each one
// viewable, one consent, one signature pad, and one action that signs them all (or rejects the set);
// afterwards each signed PDF is offered. An ordered flow that has not reached the signer shows the
// documents but not the pad.
import { useState } from 'react';
import { PageShell, usePageI18n } from './components/PageShell';
import { SigningSection } from './components/SigningSection';
import { usePageData } from './use-page-data';
import { useSigningActions } from './use-signing-actions';
import type { Signature } from './api';
import { RejectedView, StateView } from './components/Outcome';
import { DocumentList, SignedSet } from './components/SetDocuments';
import { SenderCard } from './components/SenderCard';
import { SignersList } from './components/SignersList';
import {
  finishSetSat,
  getSetInfo,
  prepareSetSat,
  rejectSet,
  sendSetCode,
  setIdentityApi,
  signSet,
  verifySetCode,
  type SetSigningInfo,
} from './set-api';
import { IdentityStep } from './components/IdentityStep';
import { EfirmaSection } from './components/EfirmaSection';
import { setDictionaries, setPageDict } from './set-i18n';
import { signingMode } from './proof';

export function SetApp({ token }: { token: string }) {
  const { info, setInfo, loadError, load } = usePageData(() => getSetInfo(token), token);
  const { error, setError, busy, rejectOpen, setRejectOpen, status, setStatus, run } = useSigningActions(load);
  const [signature, setSignature] = useState<Signature | null>(null);
  const [consent, setConsent] = useState(false);
  const [version, setVersion] = useState(0);

  const i18n = usePageI18n(info?.language, setPageDict, info?.default_language);
  const { t } = i18n;
  const st = setDictionaries[i18n.lang];

  const toSign = info
    ? info.documents.filter((d) => d.status === 'pending' && d.signer_status !== 'signed' && d.signer_status !== 'rejected')
    : [];

  const doSign = async () => {
    if (!signature || !consent || busy) {
      return;
    }
    await run('sign', st.signingAll(toSign.length), async () => {
      const result = await signSet(token, signature, i18n.lang);
      setStatus(`${st.signedAllTitle}. ${result.set_status === 'COMPLETED' ? st.completedAll : st.waitingOthers}`);
      setVersion((v) => v + 1);
      await load();
    });
  };

  const doReject = (reason: string) =>
    run('reject', t.rejecting, async () => {
      await rejectSet(token, reason);
      setStatus(t.rejectedByYou);
      await load();
    });

  // A plain function, not a component: the pad and the form keep their state across renders.
  function setPage(s: SetSigningInfo) {
    const list = <DocumentList token={token} documents={s.documents} version={version} />;
    const sender = <SenderCard sender={s.sender} message={s.message} signer={s.signer} />;
    if (s.signer.status === 'signed') {
      return (
        <>
          <SignedSet documents={s.documents} signedAt={s.signer.signed_at} setStatus={s.set.status} />
          {sender}
          <SignersList signers={s.signers} />
          {list}
        </>
      );
    }
    if (s.signer.status === 'rejected') {
      return <RejectedView />;
    }
    const closed = s.set.status !== 'CLOSED' ? t.state[s.set.status] : undefined;
    if (closed) {
      return <StateView title={closed[0]} text={closed[1]} state={s.set.status.toLowerCase()} />;
    }
    const notDue = !s.signer.due && <StateView title={st.notDueTitle} text={st.notDue} state="not-due" />;
    if (s.signer.identity.required && s.signer.identity.status !== 'verified') {
      // Identity first, once for all the documents (IdentityStep.tsx): the pad and the e.firma come
      // once it is approved. Verifying does not wait for an ordered flow to reach the signer (as the
      // API allows), so their review can be decided before their turn comes.
      return (
        <>
          {notDue}
          {sender}
          <p className="box-hint">{st.intro(toSign.length)}</p>
          {list}
          <SignersList signers={s.signers} />
          <section id="signing" className="signing" aria-label={t.signHeading} tabIndex={-1}>
            <IdentityStep
              token={token}
              set={setIdentityApi}
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
    if (notDue) {
      return (
        <>
          {notDue}
          {sender}
          {list}
        </>
      );
    }
    if (s.signer.proof === 'efirma') {
      // The SAT signer: the e.firma is opened once in this page, then each document is prepared,
      // signed with the key here and finished in turn (the key never leaves the page).
      return (
        <>
          {sender}
          <p className="box-hint">{st.intro(toSign.length)}</p>
          {list}
          <SignersList signers={s.signers} />
          <EfirmaSection
            token={token}
            rfc={s.signer.rfc ?? ''}
            language={i18n.lang}
            busy={busy !== null}
            run={(action) => run('sign', st.signingAll(toSign.length), action)}
            onSigned={() => undefined}
            signWith={async (efirma) => {
              let setStatusAfter = s.set.status;
              for (const [i, d] of toSign.entries()) {
                const prepared = await prepareSetSat(token, d.document_ticket, efirma.certificate, i18n.lang);
                // One look at the certificate, before the first document: the same one signs them all.
                if (i === 0 && !(await efirma.confirm(prepared.certificate))) {
                  return;
                }
                const signature = await efirma.sign(prepared.signed_attributes);
                setStatusAfter = (await finishSetSat(token, d.document_ticket, prepared.preparation_id, signature)).set_status;
              }
              setStatus(`${st.signedAllTitle}. ${setStatusAfter === 'COMPLETED' ? st.completedAll : st.waitingOthers}`);
              setVersion((v) => v + 1);
              await load();
            }}
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
    const canSign = signature !== null && consent && busy === null && toSign.length > 0;
    return (
      <>
        {sender}
        <p className="box-hint">{st.intro(toSign.length)}</p>
        {list}
        <SignersList signers={s.signers} />
        <SigningSection
          token={token}
          signer={s.signer}
          available={available}
          needsCode={needsCode}
          code={{ send: () => sendSetCode(token), verify: (code) => verifySetCode(token, code) }}
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
          signLabel={busy === 'sign' ? st.signingAll(toSign.length) : st.signAll(toSign.length)}
          onSign={() => void doSign()}
          rejectOpen={rejectOpen}
          onRejectOpen={setRejectOpen}
          onReject={(r) => void doReject(r)}
        />
      </>
    );
  }

  const signable =
    info && info.set.status === 'CLOSED' && info.signer.due && info.signer.status !== 'signed' && info.signer.status !== 'rejected';
  return (
    <PageShell
      i18n={i18n}
      heading={info?.set.name || t.title}
      documentTitle={info?.set.name ? `${info.set.name} · ${t.title}` : t.title}
      skipToSign={!!signable}
      load={{
        loaded: info !== null,
        error: loadError,
        invalid: (e) => e.code === 'SIGNING_LINK_INVALID',
        onRetry: () => void load(),
        texts: { loading: t.loading, retry: t.retry, invalidTitle: t.linkInvalidTitle, invalidText: t.linkInvalid },
      }}
      error={error}
      onDismissError={() => setError(null)}
      status={status}
    >
      {info && setPage(info)}
    </PageShell>
  );
}
