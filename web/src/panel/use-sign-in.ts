// The sign-in page's state (SignInPage.tsx): a link's token in the fragment (#token=…) traded for a
// session, the address bar cleaned at once so the token does not stay in the history; else the
// request for a link by email.
import { type FormEvent, useEffect, useRef, useState } from 'react';
import { api, PanelError, type Session } from './api';
import { usePanelI18n } from './panel-i18n';

function tokenInFragment(): string | null {
  const m = /(?:^#|&)token=([A-Za-z0-9_-]+)/.exec(window.location.hash);
  return m ? m[1] : null;
}

export function useSignIn(onSignedIn: (s: Session) => void) {
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

  return { state, error, email, setEmail, submit };
}
