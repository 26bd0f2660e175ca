// The set page (/sign/set/{token}): every document of a set where the signer has a box, each one
// viewable, one consent, one signature pad, and one action that signs them all (or rejects the set);
// afterwards each signed PDF is offered. An ordered flow that has not reached the signer shows the
// documents but not the pad.
import type { OpenedEfirma } from './components/EfirmaStep';
import type { OpenedCertificate } from './use-certificate-signing';
import { StateView } from './components/Outcome';
import { DocumentList, SignedSet } from './components/SetDocuments';
import { SenderCard } from './components/SenderCard';
import { SignerFieldBox } from './components/SignerFieldBox';
import { SignerPageShell, SignerSteps } from './components/SignerPage';
import {
  authorizeSetCsc,
  finishSetCert,
  finishSetSat,
  getSetInfo,
  prepareSetCert,
  prepareSetSat,
  rejectSet,
  type SetDocument,
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
import { SignerFieldsContext, useSignerFieldsState, withFieldValues } from './use-signer-fields';

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
  // The fields this signer fills in the documents still to sign: one state for the whole set, each
  // document's sent with that document's revision.
  // Where more than one document has fields, each says which document it belongs to.
  const withFields = toSign.filter((d) => d.signer_fields.length > 0);
  const named = (d: SetDocument) =>
    withFields.length > 1
      ? d.signer_fields.map((f) => ({ ...f, label: `${f.label?.trim() || t.fields.untitled[f.type]} · ${d.name}` }))
      : d.signer_fields;
  const fields = useSignerFieldsState(closed || !s.signer.due ? [] : withFields.flatMap(named), { signerName: s.signer.name });
  const fieldBoxes = (d: SetDocument) =>
    fields.fields
      .filter((f) => d.signer_fields.some((g) => g.id === f.id))
      .map((f) => ({
        key: f.id,
        page: f.page,
        rect: f.rect,
        render: (place: Parameters<typeof SignerFieldBox>[0]['place']) => (
          <SignerFieldBox field={f} state={fields} place={place} disabled={page.busy !== null} />
        ),
      }));
  const ofDocument = (d: SetDocument) => (f: { id: string }) => d.signer_fields.some((g) => g.id === f.id);

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
      const prepared = await withFieldValues(
        fields,
        (values) => prepareSetSat(token, d.document_ticket, efirma.certificate, i18n.lang, values),
        ofDocument(d),
      );
      // One look at the certificate, before the first document: the same one signs them all.
      if (i === 0 && !(await efirma.confirm(prepared.certificate))) {
        return;
      }
      const signature = await efirma.sign(prepared.signed_attributes);
      setStatusAfter = (await finishSetSat(token, d.document_ticket, prepared.preparation_id, signature)).set_status;
    }
    await signedAll(setStatusAfter);
  };

  // The CERT signer: the certificate file is opened once in this page, then each document is
  // prepared, signed with the key here and finished in turn, as with the e.firma.
  const signWithCertificate = async (opened: OpenedCertificate) => {
    let setStatusAfter = s.set.status;
    for (const [i, d] of toSign.entries()) {
      const prepared = await withFieldValues(
        fields,
        (values) => prepareSetCert(token, d.document_ticket, opened.certificate, i18n.lang, values),
        ofDocument(d),
      );
      if (i === 0 && !(await opened.confirm(prepared.certificate))) {
        return;
      }
      setStatusAfter = (await finishSetCert(token, d.document_ticket, prepared.preparation_id, await opened.sign(prepared))).set_status;
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
    <SignerFieldsContext.Provider value={fields}>
      <SignerSteps
        page={page}
        token={token}
        signer={s.signer}
        signers={s.signers}
        sender={<SenderCard sender={s.sender} message={s.message} signer={s.signer} />}
        documents={<DocumentList token={token} documents={s.documents} version={page.version} extraBoxes={fieldBoxes} />}
        hint={<p className="box-hint">{st.intro(toSign.length)}</p>}
        hintBeforeIdentity
        signedView={<SignedSet documents={s.documents} signedAt={s.signer.signed_at} setStatus={s.set.status} />}
        closed={closed && [closed[0], closed[1], s.set.status.toLowerCase()]}
        notDue={!s.signer.due && <StateView title={st.notDueTitle} text={st.notDue} state="not-due" />}
        identityApi={setIdentityApi}
        words={{ sign: st.signAll(toSign.length), signing: st.signingAll(toSign.length) }}
        sign={async (signature) =>
          signedAll((await withFieldValues(fields, (values) => signSet(token, signature, i18n.lang, values))).set_status)
        }
        efirma={{ onSigned: () => undefined, signWith: signWithEfirma }}
        certificateSignWith={signWithCertificate}
        remoteAuthorize={(language, values) => authorizeSetCsc(token, language, values)}
        code={{ send: () => sendSetCode(token), verify: (code) => verifySetCode(token, code) }}
        reject={doReject}
        anythingToSign={toSign.length > 0}
      />
    </SignerFieldsContext.Provider>
  );
}
