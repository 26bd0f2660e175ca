// The EMAIL, SMS and WHATSAPP authorities' proof: a six-digit code sent to the signer's address or
// phone, entered here before the signature pad appears.
import { useState } from 'react';
import { ApiError, sendCode, verifyCode } from '../api';
import { useI18n } from '../i18n';
import type { CodeChannel } from '../proof';

export function CodeStep(props: {
  token: string;
  email: string;
  /** Where the code goes: the signer's email, or their phone by SMS or WhatsApp. */
  channel: CodeChannel;
  onVerified: () => void;
  onError: (e: ApiError) => void;
  /** Calls to use instead of the per-document ones (a set link proves all its documents with one code). */
  send?: () => Promise<{ to: string }>;
  verify?: (code: string) => Promise<unknown>;
}) {
  const send = props.send ?? (() => sendCode(props.token));
  const verify = props.verify ?? ((code: string) => verifyCode(props.token, code));
  const { t } = useI18n();
  const [sentTo, setSentTo] = useState<string | null>(null);
  const [code, setCode] = useState('');
  const [busy, setBusy] = useState(false);

  const run = async (fn: () => Promise<void>) => {
    setBusy(true);
    try {
      await fn();
    } catch (err) {
      props.onError(err instanceof ApiError ? err : new ApiError(0, 'NETWORK', String(err)));
    } finally {
      setBusy(false);
    }
  };

  return (
    <div className="code-step">
      <h2>{t.codeHeading[props.channel]}</h2>
      {sentTo === null ? (
        <>
          <p>{t.codeIntro(props.channel, props.email)}</p>
          <button
            type="button"
            className="button button-primary"
            disabled={busy}
            onClick={() => void run(async () => setSentTo((await send()).to))}
          >
            {t.codeSend}
          </button>
        </>
      ) : (
        <form
          onSubmit={(e) => {
            e.preventDefault();
            void run(async () => {
              await verify(code);
              props.onVerified();
            });
          }}
        >
          <p role="status">{t.codeSent(sentTo)}</p>
          <label htmlFor="otp-code">{t.codeLabel}</label>
          <input
            id="otp-code"
            inputMode="numeric"
            autoComplete="one-time-code"
            pattern="[0-9]{6}"
            maxLength={6}
            value={code}
            onChange={(e) => setCode(e.target.value.replace(/\D/g, ''))}
            disabled={busy}
          />
          <div className="actions">
            <button type="submit" className="button button-primary" disabled={busy || code.length !== 6}>
              {t.codeVerify}
            </button>
            <button type="button" className="button" disabled={busy} onClick={() => void run(async () => setSentTo((await send()).to))}>
              {t.codeResend}
            </button>
          </div>
        </form>
      )}
    </div>
  );
}
