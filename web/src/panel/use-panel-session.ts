// The panel's session and language (PanelApp.tsx): the session asked of the server on the first
// visit to a section (or the sign-in page without one), signing in and out, a session the server
// ended (then the sign-in page says so), and the language kept in this browser.
import { useCallback, useEffect, useState } from 'react';
import type { Lang } from '../api';
import { browserLang } from '../i18n';
import { api, type Session, setCsrfToken } from './api';
import { navigate, type Route } from './router';

const LANG_KEY = 'sello-panel-lang';

function initialLang(): Lang {
  const kept = window.localStorage.getItem(LANG_KEY);
  return kept === 'es' || kept === 'en' ? kept : browserLang();
}

/** The panel's language: the one chosen in this browser, else the browser's. */
export function usePanelLang() {
  const [lang, setLangState] = useState<Lang>(initialLang);
  const setLang = useCallback((l: Lang) => {
    window.localStorage.setItem(LANG_KEY, l);
    setLangState(l);
  }, []);
  useEffect(() => {
    document.documentElement.lang = lang;
  }, [lang]);
  return { lang, setLang };
}

export function usePanelSession(route: Route) {
  const [session, setSession] = useState<Session | null>(null);
  const [ended, setEnded] = useState(false);

  useEffect(() => {
    const onEnded = () => {
      setSession(null);
      setEnded(true);
      navigate('/panel/sign-in');
    };
    window.addEventListener('panel-session-ended', onEnded);
    return () => window.removeEventListener('panel-session-ended', onEnded);
  }, []);

  useEffect(() => {
    if (route.page === 'sign-in' || session) {
      return;
    }
    api.session().then(
      (s) => {
        setCsrfToken(s.csrf_token);
        setSession(s);
      },
      () => navigate('/panel/sign-in'),
    );
  }, [route.page, session]);

  const signedIn = (s: Session) => {
    setCsrfToken(s.csrf_token);
    setEnded(false);
    setSession(s);
    navigate('/panel');
  };

  const signOut = async () => {
    await api.signOut().catch(() => undefined);
    setCsrfToken('');
    setSession(null);
    navigate('/panel/sign-in');
  };

  return { session, ended, signedIn, signOut };
}
