// /panel/sign-in: with a link's token in the fragment (#token=…), trades it for a session; else the
// form that asks for a link by email. The fragment never reaches the server in a URL, and the
// address bar is cleaned at once so the token does not stay in the history.
import { type FormEvent, useEffect, useRef, useState } from 'react';
import { api, PanelError, type Session } from './api';
import { TextField } from './fields';
import { usePanelI18n } from './panel-i18n';
import { PageHeading } from './widgets';

function tokenInFragment(): string | null {
  const m = /(?:^#|&)token=([A-Za-z0-9_-]+)/.exec(window.location.hash);
  return m ? m[1] : null;
}

export function SignInPage({ onSignedIn, ended }: { onSignedIn: (s: Session) => void; ended: boolean }) {
  const { t, lang } = usePanelI18n();
  const [token, setToken] = useState(tokenInFragment);
  const [state, setState] = useState<'form' | 'signing-in' | 'sending' | 'sent'>(token ? 'signing-in' : 'form');
  const [error, setError] = useState<string | null>(null);
  const [email, setEmail] = useState('');
  const started = useRef(false);

  // A link opened in a tab that shows this page already changes only the fragment: no reload.
  useEffect(() => {
    const onHash = () => {
      const next = tokenInFragment();
      if (next) {
        started.current = false;
        setState('signing-in');
        setToken(next);
      }
    };
    window.addEventListener('hashchange', onHash);
    return () => window.removeEventListener('hashchange', onHash);
  }, []);

  useEffect(() => {
    if (!token || started.current) {
      return;
    }
    started.current = true;
    window.history.replaceState(null, '', '/panel/sign-in');
    api
      .signIn(token)
      .then(() => api.session())
      .then(onSignedIn, (e: unknown) => {
        setError(e instanceof PanelError && e.code === 'SIGN_IN_LINK_INVALID' ? t.linkInvalid : String((e as Error).message));
        setState('form');
      });
  }, [token, onSignedIn, t]);

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setError(null);
    setState('sending');
    try {
      await api.requestLink(email, lang);
      setState('sent');
    } catch (err) {
      setError(err instanceof PanelError && err.status === 429 ? t.tooMany : String((err as Error).message));
      setState('form');
    }
  };

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
