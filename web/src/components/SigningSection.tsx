// The part of a signing page where the signer acts: a clear refusal for an authority this server
// cannot verify, the one-time code step for EMAIL signers, or the pad with consent, sign and reject.
// The single-document page and the set page differ only in what signing means and what the button
// says, so they pass those in.
import type { ApiError, Signature } from '../api';
import { useI18n } from '../i18n';
import { CodeStep } from './CodeStep';
import { StateView } from './Outcome';
import { RejectDialog } from './RejectDialog';
import { SignatureField } from './SignatureField';
import { codeChannelOf } from '../proof';

export interface SigningSectionProps {
  token: string;
  signer: { authority: string; email: string | null; proof: string };
  /** The authority can be proven on this server. */
  available: boolean;
  /** An EMAIL signer who has not verified a code yet. */
  needsCode: boolean;
  code?: { send: () => Promise<{ to: string }>; verify: (code: string) => Promise<unknown> };
  onCodeError: (e: ApiError) => void;
  onVerified: () => void;
  onSignature: (s: Signature | null) => void;
  consent: boolean;
  onConsent: (v: boolean) => void;
  busy: 'sign' | 'reject' | null;
  canSign: boolean;
  signLabel: string;
  onSign: () => void;
  rejectOpen: boolean;
  onRejectOpen: (open: boolean) => void;
  onReject: (reason: string) => void;
  /** Sign and Reject live in the page's action bar (ActionBar.tsx), which submits #sign-form. */
  externalActions?: boolean;
}

export function SigningSection(p: SigningSectionProps) {
  const { t } = useI18n();
  return (
    <>
      <section id="signing" className="signing" aria-label={t.signHeading} tabIndex={-1}>
        {!p.available ? (
          <StateView title={t.authorityTitle} text={t.authority(p.signer.authority)} state="authority-not-available" />
        ) : p.needsCode ? (
          <CodeStep
            token={p.token}
            email={p.signer.email ?? ''}
            channel={codeChannelOf(p.signer.proof) ?? 'email'}
            send={p.code?.send}
            verify={p.code?.verify}
            onError={p.onCodeError}
            onVerified={p.onVerified}
          />
        ) : (
          <form
            id="sign-form"
            onSubmit={(e) => {
              e.preventDefault();
              p.onSign();
            }}
          >
            <SignatureField onChange={p.onSignature} disabled={p.busy !== null} />
            <div className="consent">
              <input
                id="consent"
                type="checkbox"
                checked={p.consent}
                onChange={(e) => p.onConsent(e.target.checked)}
                disabled={p.busy !== null}
              />
              <label htmlFor="consent">{t.consent}</label>
            </div>
            {!p.canSign && p.busy === null && (
              <p className="hint" id="sign-needs">
                {t.signNeeds}
              </p>
            )}
            {!p.externalActions && (
              <div className="actions">
                <button
                  type="submit"
                  className="button button-primary"
                  disabled={!p.canSign}
                  aria-describedby={p.canSign ? undefined : 'sign-needs'}
                >
                  {p.signLabel}
                </button>
                <button
                  type="button"
                  className="button button-danger-outline"
                  onClick={() => p.onRejectOpen(true)}
                  disabled={p.busy !== null}
                >
                  {t.reject}
                </button>
              </div>
            )}
          </form>
        )}
      </section>
      <RejectDialog open={p.rejectOpen} busy={p.busy === 'reject'} onClose={() => p.onRejectOpen(false)} onReject={p.onReject} />
    </>
  );
}
