// /panel/sign-in: with a link's token in the fragment (#token=…), trades it for a session; else the
// form that asks for a link by email. The fragment never reaches the server in a URL, and the
// address bar is cleaned at once so the token does not stay in the history.
import type { Session } from './api';
import { TextField } from './fields';
import { usePanelI18n } from './panel-i18n';
import { useSignIn } from './use-sign-in';
import { PageHeading } from './widgets';

export function SignInPage({ onSignedIn, ended }: { onSignedIn: (s: Session) => void; ended: boolean }) {
  const { t } = usePanelI18n();
  const { state, error, email, setEmail, submit } = useSignIn(onSignedIn);
  return (
    <section className="card sign-in" aria-labelledby="sign-in-title">
      <PageHeading>
        <span id="sign-in-title">{t.signInTitle}</span>
      </PageHeading>
      {ended && !error && state === 'form' && <p className="notice">{t.sessionEnded}</p>}
      {error && (
        <p className="notice-error" role="alert" data-testid="sign-in-error">
          {error}
        </p>
      )}
      {state === 'signing-in' ? (
        <p className="loading" role="status">
          {t.signingIn}
        </p>
      ) : state === 'sent' ? (
        <p role="status" data-testid="link-sent">
          {t.linkSent}
        </p>
      ) : (
        <form onSubmit={submit} className="form">
          <p>{t.signInIntro}</p>
          <TextField
            id="sign-in-email"
            label={t.emailLabel}
            type="email"
            autoComplete="email"
            required
            value={email}
            onChange={(e) => setEmail(e.target.value)}
          />
          <div className="actions">
            <button type="submit" className="button button-primary" disabled={state === 'sending'}>
              {state === 'sending' ? t.sending : t.sendLink}
            </button>
          </div>
        </form>
      )}
    </section>
  );
}
