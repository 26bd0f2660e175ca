// The set page (/sign/set/{token}): every document of a set where the signer has a box, each one
// viewable, one consent, one signature pad, and one action that signs them all (or rejects the set);
// afterwards each signed PDF is offered. An ordered flow that has not reached the signer shows the
// documents but not the pad.
import type { OpenedEfirma } from './components/EfirmaStep';
import { StateView } from './components/Outcome';
import { DocumentList, SignedSet } from './components/SetDocuments';
import { SenderCard } from './components/SenderCard';
import { SignerPageShell, SignerSteps } from './components/SignerPage';
import {
  finishSetSat,
  getSetInfo,
  prepareSetSat,
  rejectSet,
  type SetSigningInfo,
  sendSetCode,
  setIdentityApi,
  signSet,
  verifySetCode,
} from './set-api';
import { setDictionaries, setPageDict } from './set-i18n';
import { postSignerEvent } from './embed-events';
import { useEmbedEvents } from './use-embed-events';
import { type SignerPageState, useSignerPage } from './use-signer-page';

export function SetApp({ token }: { token: string }) {
  const page = useSignerPage(() => getSetInfo(token), token, setPageDict);
  const { info, t } = page;
  const signable =
    info && info.set.status === 'CLOSED' && info.signer.due && info.signer.status !== 'signed' && info.signer.status !== 'rejected';
  useEmbedEvents({
    subject: info ? { set_uuid: info.set.uuid } : null,
    signerStatus: info?.signer.status,
    // Every box of the signer in the set, the documents in the set's order (SetDocuments.tsx).
    boxCount: info ? info.documents.reduce((n, d) => n + d.boxes.length, 0) : 0,
    error: page.loadError ?? page.error,
  });
  return (
    <SignerPageShell
      page={page}
      brand={info ? info.sender : page.loadError ? null : 'loading'}
      heading={info?.set.name || t.title}
      documentTitle={info?.set.name ? `${info.set.name} · ${t.title}` : t.title}
      signable={!!signable}
      loaded={info !== null}
    >
      {info && <SetSteps page={page} token={token} info={info} />}
    </SignerPageShell>
  );
}

/** The set's own parts in the signer's steps: the list of documents, and signing them all. */
function SetSteps({ page, token, info: s }: { page: SignerPageState; token: string; info: SetSigningInfo }) {
  const { t, i18n } = page;
  const st = setDictionaries[i18n.lang];
  const toSign = s.documents.filter((d) => d.status === 'pending' && d.signer_status !== 'signed' && d.signer_status !== 'rejected');
  const closed = s.set.status !== 'CLOSED' ? t.state[s.set.status] : undefined;

  /** Says how the set stands after signing, and shows the signed PDFs. */
  const signedAll = async (setStatus: string) => {
    postSignerEvent({ set_uuid: s.set.uuid }, 'signed', { status: setStatus });
    page.setStatus(`${st.signedAllTitle}. ${setStatus === 'COMPLETED' ? st.completedAll : st.waitingOthers}`);
    page.nextVersion();
    await page.load();
  };

  // The SAT signer: the e.firma is opened once in this page, then each document is prepared,
  // signed with the key here and finished in turn (the key never leaves the page).
  const signWithEfirma = async (efirma: OpenedEfirma) => {
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
    await signedAll(setStatusAfter);
  };

  const doReject = (reason: string) =>
    page.run('reject', t.rejecting, async () => {
      const result = await rejectSet(token, reason);
      page.setStatus(t.rejectedByYou);
      postSignerEvent({ set_uuid: s.set.uuid }, 'rejected', { status: result.set_status });
      await page.load();
    });

  return (
    <SignerSteps
      page={page}
      token={token}
      signer={s.signer}
      signers={s.signers}
      sender={<SenderCard sender={s.sender} message={s.message} signer={s.signer} />}
      documents={<DocumentList token={token} documents={s.documents} version={page.version} />}
      hint={<p className="box-hint">{st.intro(toSign.length)}</p>}
      hintBeforeIdentity
      signedView={<SignedSet documents={s.documents} signedAt={s.signer.signed_at} setStatus={s.set.status} />}
      closed={closed && [closed[0], closed[1], s.set.status.toLowerCase()]}
      notDue={!s.signer.due && <StateView title={st.notDueTitle} text={st.notDue} state="not-due" />}
      identityApi={setIdentityApi}
      words={{ sign: st.signAll(toSign.length), signing: st.signingAll(toSign.length) }}
      sign={async (signature) => signedAll((await signSet(token, signature, i18n.lang)).set_status)}
      efirma={{ onSigned: () => undefined, signWith: signWithEfirma }}
      code={{ send: () => sendSetCode(token), verify: (code) => verifySetCode(token, code) }}
      reject={doReject}
      anythingToSign={toSign.length > 0}
    />
  );
}
