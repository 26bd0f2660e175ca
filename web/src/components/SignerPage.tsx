// The frame both signer pages (a document's, App.tsx; a set's, SetApp.tsx) put their own parts in:
// the shell (header, language, loading, error banner, live region) and the steps the signer goes
// through: identity first when asked, then the e.firma or the pad (with the one-time code before it
// when the proof is a code), the action bar, and the outcome once signed, rejected or closed.
import type { ReactNode } from 'react';
import type { ApiError, Signature } from '../api';
import { signingMode } from '../proof';
import type { CertificateStepProps } from '../use-certificate-signing';
import type { SignerPageState } from '../use-signer-page';
import { ActionBar } from './ActionBar';
import { CertificateSection, EfirmaSection, RemoteSection } from './EfirmaSection';
import type { EfirmaStepProps } from './EfirmaStep';
import type { RemoteStepProps } from './RemoteStep';
import { type IdentityApi, IdentityStep, type IdentityStepProps } from './IdentityStep';
import { RejectedView, StateView } from './Outcome';
import { type PageBrand, PageShell } from './PageShell';
import { useSignerFields } from '../use-signer-fields';
import { SignerFieldsList } from './SignerFieldsList';
import { SignersList } from './SignersList';
import { SigningSection, type SigningSectionProps } from './SigningSection';

export interface SignerPageShellProps {
  page: SignerPageState;
  heading: string;
  documentTitle: string;
  /** The signer can still sign: the skip link to the form is offered. */
  signable: boolean;
  /** Something other than the data stands for the page (a withdrawn endorsement). */
  loaded: boolean;
  /** The action's error to show; by default the page's own. */
  error?: ApiError | null;
  /** The sender's brand once the data says it (PageShell). */
  brand?: PageBrand | null | 'loading';
  children?: ReactNode;
}

/** PageShell with what a signer page loads and announces; an invalid link has its own words. */
export function SignerPageShell({ page, error = page.error, ...p }: SignerPageShellProps) {
  const { t } = page;
  return (
    <PageShell
      i18n={page.i18n}
      brand={p.brand}
      heading={p.heading}
      documentTitle={p.documentTitle}
      skipToSign={p.signable}
      load={{
        loaded: p.loaded,
        error: page.loadError,
        invalid: (e) => e.code === 'SIGNING_LINK_INVALID',
        onRetry: () => void page.load(),
        texts: { loading: t.loading, retry: t.retry, invalidTitle: t.linkInvalidTitle, invalidText: t.linkInvalid },
      }}
      error={error}
      onDismissError={() => page.setError(null)}
      status={page.status}
    >
      {p.children}
    </PageShell>
  );
}

/** What the steps need to know of the signer (a document's or a set's signing info). */
export type StepSigner = SigningSectionProps['signer'] & {
  status: string;
  rfc: string | null;
  verified: boolean;
  identity: IdentityStepProps['identity'] & { required: boolean; status: string | null };
};

export interface SignerStepsProps {
  page: SignerPageState;
  token: string;
  signer: StepSigner;
  signers: { name: string | null; status: string }[];
  /** Who asks for the signature, with their message. */
  sender: ReactNode;
  /** The document's viewer, or the set's list of documents. */
  documents: ReactNode;
  /** What the signer is asked to sign, above the documents. */
  hint: ReactNode;
  /** The hint is shown above the identity step too. */
  hintBeforeIdentity?: boolean;
  /** The outcome once the signer has signed. */
  signedView: ReactNode;
  /** Why nobody can sign any more: title, text and the state's name; undefined while signing is open. */
  closed?: [string, string, string];
  /** An ordered flow has not reached the signer yet: said above everything, and no pad. */
  notDue?: ReactNode;
  /** A set link's identity calls (IdentityStep.tsx); the document link's by default. */
  identityApi?: IdentityApi;
  /** The button's words, and the announcement while signing (the pad's and the e.firma's). */
  words: { sign: string; signing: string };
  /** Signs with the pad's signature; runs as the page's sign action. */
  sign: (signature: Signature) => Promise<void>;
  efirma: Pick<EfirmaStepProps, 'onSigned' | 'signWith'>;
  /** A CERT signer's signature of something else than one document (a set's documents in turn). */
  certificateSignWith?: CertificateStepProps['signWith'];
  /** A CSC signer's authorization of something else than one document (a set's documents at once). */
  remoteAuthorize?: RemoteStepProps['authorize'];
  /** Rejects with the reason; runs as the page's reject action. */
  reject: (reason: string) => Promise<void>;
  /** A set link's one-time code calls (SigningSection.tsx); the document link's by default. */
  code?: SigningSectionProps['code'];
  /** Whether anything is left to sign (a set whose documents are all signed or closed has nothing). */
  anythingToSign?: boolean;
  /** How many boxes the action bar leads to; without it the page has no action bar. */
  bar?: number;
}

export function SignerSteps(p: SignerStepsProps) {
  const { signer: s } = p;
  if (s.status === 'signed') {
    return (
      <>
        {p.signedView}
        {p.sender}
        <SignersList signers={p.signers} />
        {p.documents}
      </>
    );
  }
  if (s.status === 'rejected') {
    return <RejectedView />;
  }
  if (p.closed) {
    return <StateView title={p.closed[0]} text={p.closed[1]} state={p.closed[2]} />;
  }
  if (s.identity.required && s.identity.status !== 'verified') {
    // Identity first (IdentityStep.tsx): the pad and the e.firma come once it is approved. It does not
    // wait for an ordered flow to reach the signer (as the API allows), so their review can be
    // decided before their turn comes.
    return (
      <>
        {p.notDue}
        {p.sender}
        {p.hintBeforeIdentity && p.hint}
        {p.documents}
        <SignersList signers={p.signers} />
        <IdentitySection page={p.page} token={p.token} identity={s.identity} api={p.identityApi} />
      </>
    );
  }
  if (p.notDue) {
    return (
      <>
        {p.notDue}
        {p.sender}
        {p.documents}
      </>
    );
  }
  return (
    <>
      {p.sender}
      {p.hint}
      {p.documents}
      <SignersList signers={p.signers} />
      <SignerFieldsList disabled={p.page.busy !== null} />
      {s.proof === 'efirma' ? (
        <SatSection {...p} />
      ) : s.proof === 'certificate' ? (
        <CertSection {...p} />
      ) : s.proof === 'remote' ? (
        <CscSection {...p} />
      ) : (
        <PadSection {...p} />
      )}
    </>
  );
}

function IdentitySection(p: { page: SignerPageState; token: string; identity: IdentityStepProps['identity']; api?: IdentityApi }) {
  const { page } = p;
  return (
    <section id="signing" className="signing" aria-label={page.t.signHeading} tabIndex={-1}>
      <IdentityStep
        token={p.token}
        set={p.api}
        language={page.i18n.lang}
        identity={p.identity}
        busy={page.busy !== null}
        run={(announce, action) =>
          page.run('sign', announce, async () => {
            await action();
            page.setStatus('');
          })
        }
        onChanged={() => void page.load()}
      />
    </section>
  );
}

/** The SAT signer signs with their own e.firma, read in this page (EfirmaStep.tsx). */
function SatSection({ page, token, signer, words, efirma, reject }: SignerStepsProps) {
  return (
    <EfirmaSection
      token={token}
      rfc={signer.rfc ?? ''}
      language={page.i18n.lang}
      busy={page.busy !== null}
      run={(action) => page.run('sign', words.signing, action)}
      onSigned={efirma.onSigned}
      signWith={efirma.signWith}
      heading={page.t.signHeading}
      rejectLabel={page.t.reject}
      rejectOpen={page.rejectOpen}
      onRejectOpen={page.setRejectOpen}
      rejecting={page.busy === 'reject'}
      onReject={(r) => void reject(r)}
    />
  );
}

/** The CERT signer signs with their own certificate, read in this page (CertificateStep.tsx). */
function CertSection({ page, token, words, efirma, certificateSignWith, reject }: SignerStepsProps) {
  return (
    <CertificateSection
      token={token}
      language={page.i18n.lang}
      busy={page.busy !== null}
      run={(action) => page.run('sign', words.signing, action)}
      onSigned={efirma.onSigned}
      signWith={certificateSignWith}
      heading={page.t.signHeading}
      rejectLabel={page.t.reject}
      rejectOpen={page.rejectOpen}
      onRejectOpen={page.setRejectOpen}
      rejecting={page.busy === 'reject'}
      onReject={(r) => void reject(r)}
    />
  );
}

/** The CSC signer signs with a credential at their provider, authorized on its page (RemoteStep.tsx). */
function CscSection({ page, token, words, remoteAuthorize, reject }: SignerStepsProps) {
  return (
    <RemoteSection
      token={token}
      authorize={remoteAuthorize}
      language={page.i18n.lang}
      busy={page.busy !== null}
      run={(action) => page.run('sign', words.signing, action)}
      heading={page.t.signHeading}
      rejectLabel={page.t.reject}
      rejectOpen={page.rejectOpen}
      onRejectOpen={page.setRejectOpen}
      rejecting={page.busy === 'reject'}
      onReject={(r) => void reject(r)}
    />
  );
}

/** The pad (or the one-time code before it), consent, and the action bar where the page has one. */
function PadSection({ page, token, signer, words, sign, reject, code, anythingToSign = true, bar }: SignerStepsProps) {
  const { busy, signature, consent } = page;
  const { available, needsCode } = signingMode(signer);
  const canSign = signature !== null && consent && busy === null && anythingToSign;
  const signLabel = busy === 'sign' ? words.signing : words.sign;
  const fields = useSignerFields();
  const onSign = () => {
    // A field to correct stops the signature: its problem is shown there, and the signer taken to it.
    if (signature && consent && !busy && (!fields || fields.check())) {
      void page.run('sign', words.signing, () => sign(signature));
    }
  };
  return (
    <>
      <SigningSection
        token={token}
        signer={signer}
        available={available}
        needsCode={needsCode}
        code={code}
        onCodeError={(e) => page.setError(e)}
        onVerified={page.codeVerified}
        onSignature={page.setSignature}
        consent={consent}
        onConsent={page.setConsent}
        busy={busy}
        canSign={canSign}
        signLabel={signLabel}
        onSign={onSign}
        rejectOpen={page.rejectOpen}
        onRejectOpen={page.setRejectOpen}
        onReject={(r) => void reject(r)}
        externalActions={bar !== undefined}
      />
      {available && bar !== undefined && (
        <ActionBar
          boxes={bar}
          canSign={canSign && !needsCode}
          busy={busy !== null}
          signLabel={signLabel}
          onReject={() => page.setRejectOpen(true)}
        />
      )}
    </>
  );
}
