// The signer page: loads what the link gives access to, shows the document with the signer's
// boxes, and lets the signer sign (drawn or typed, with consent) or reject with a reason.
import { getInfo, reject, type SignResult, type SigningInfo, sign } from './api';
import { EndorsementCard } from './components/EndorsementCard';
import { SignedView, StateView } from './components/Outcome';
import { documentDict } from './components/PageShell';
import { PdfViewer } from './components/PdfViewer';
import { SenderCard } from './components/SenderCard';
import { SignerFieldBox } from './components/SignerFieldBox';
import { SignerPageShell, SignerSteps } from './components/SignerPage';
import { isSetLocation } from './set-api';
import { SetApp } from './SetApp';
import { postSignerEvent } from './embed-events';
import { useEmbedEvents } from './use-embed-events';
import { type SignerPageState, useSignerPage } from './use-signer-page';
import { SignerFieldsContext, useSignerFieldsState, withFieldValues } from './use-signer-fields';

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
  const page = useSignerPage(() => getInfo(token), token, documentDict);
  const { info, t } = page;
  // The sender withdrew the endorsement this link signs: the API refuses every use of the link, on
  // the first load or on a later one (after a refused signature), and the page says so.
  const withdrawn = page.loadError?.code === 'ENDORSEMENT_WITHDRAWN';
  const signable = !withdrawn && info && info.signer.status !== 'signed' && info.signer.status !== 'rejected' && !isClosed(info);
  useEmbedEvents({
    subject: info ? { document_ticket: info.document.ticket } : null,
    signerStatus: info?.signer.status,
    boxCount: info?.boxes.length ?? 0,
    error: page.loadError ?? page.error,
  });
  return (
    <SignerPageShell
      page={page}
      brand={info ? info.sender : page.loadError ? null : 'loading'}
      heading={info ? info.document.name : t.title}
      documentTitle={info ? `${info.document.name} · ${t.title}` : t.title}
      signable={!!signable}
      loaded={info !== null || withdrawn}
      error={withdrawn ? null : page.error}
    >
      {withdrawn ? (
        <StateView title={t.endorsementWithdrawnTitle} text={t.endorsementWithdrawn} state="endorsement-withdrawn" />
      ) : (
        info && <DocumentSteps page={page} token={token} info={info} setInfo={page.setInfo} />
      )}
    </SignerPageShell>
  );
}

const NO_FIELDS: SigningInfo['signer_fields'] = [];

type SetInfo = ReturnType<typeof useSignerPage<SigningInfo>>['setInfo'];

/** The document's own parts in the signer's steps: the viewer, the endorsement, what signing answers. */
function DocumentSteps({ page, token, info: s, setInfo }: { page: SignerPageState; token: string; info: SigningInfo; setInfo: SetInfo }) {
  const { t, i18n } = page;
  const signable = s.signer.status !== 'signed';
  const closed = isClosed(s) ? t.state[s.document.status] : undefined;
  // The fields this signer fills: over the pages, in the list, and with the signature on every path.
  const fields = useSignerFieldsState(signable && !closed ? s.signer_fields : NO_FIELDS, { signerName: s.signer.name });
  const fieldBoxes = fields.fields.map((f) => ({
    key: f.id,
    page: f.page,
    rect: f.rect,
    render: (place: Parameters<typeof SignerFieldBox>[0]['place']) => (
      <SignerFieldBox field={f} state={fields} place={place} disabled={page.busy !== null} />
    ),
  }));

  const signed = (result: SignResult) => {
    setInfo(
      (prev) =>
        prev && {
          ...prev,
          document: { ...prev.document, status: result.document_status },
          signer: { ...prev.signer, status: 'signed', signed_at: result.signed_at },
        },
    );
    postSignerEvent({ document_ticket: s.document.ticket }, 'signed', { status: result.document_status, signed_at: result.signed_at });
    const done = s.endorsement ? t.endorsementSigned : result.document_status === 'completed' ? t.completedAll : t.waitingOthers;
    page.setStatus(`${t.signedTitle}. ${done}`);
    page.nextVersion();
    void page.load();
  };

  const doReject = (reason: string) =>
    page.run('reject', t.rejecting, async () => {
      const result = await reject(token, reason);
      setInfo(
        (prev) =>
          prev && {
            ...prev,
            document: { ...prev.document, status: result.document_status },
            signer: { ...prev.signer, status: 'rejected' },
          },
      );
      page.setStatus(t.rejectedByYou);
      postSignerEvent({ document_ticket: s.document.ticket }, 'rejected', { status: result.document_status });
    });

  return (
    <SignerFieldsContext.Provider value={fields}>
      <SignerSteps
        page={page}
        token={token}
        signer={s.signer}
        signers={s.signers}
        sender={
          <>
            <SenderCard sender={s.sender} message={s.message} signer={s.signer} />
            {s.endorsement && <EndorsementCard endorsement={s.endorsement} />}
          </>
        }
        documents={
          <PdfViewer
            token={token}
            pages={s.pages}
            boxes={[...s.boxes, ...fieldBoxes]}
            version={page.version}
            signed={!signable}
            nextBoxElsewhere={signable}
          />
        }
        hint={<p className="box-hint">{t.boxHint(s.boxes.length)}</p>}
        signedView={
          <SignedView
            token={token}
            name={s.document.name}
            signedAt={s.signer.signed_at}
            documentStatus={s.document.status}
            endorsement={s.endorsement !== null}
          />
        }
        closed={closed && [closed[0], closed[1], s.document.status]}
        words={{ sign: t.sign, signing: t.signing }}
        sign={async (signature) => signed(await withFieldValues(fields, (values) => sign(token, signature, i18n.lang, values)))}
        efirma={{ onSigned: signed }}
        reject={doReject}
        bar={s.boxes.length + fieldBoxes.length}
      />
    </SignerFieldsContext.Provider>
  );
}
