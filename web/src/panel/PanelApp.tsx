// The account panel: the sign-in page, or — with a session — the header with the account, the
// sections and the language switch around the current section.
import { useCallback, useEffect, useMemo, useState } from 'react';
import type { Lang } from '../api';
import { browserLang, LANGUAGE_NAMES } from '../i18n';
import { api, type Session, setCsrfToken } from './api';
import { DocumentPage } from './DocumentPage';
import { DocumentsPage } from './DocumentsPage';
import { KeysPage } from './KeysPage';
import { PanelI18n, panelWords } from './panel-i18n';
import { navigate, useRoute } from './router';
import { SetsPage } from './SetsPage';
import { SignInPage } from './SignInPage';
import { TemplatesPage } from './TemplatesPage';
import { UsagePage } from './UsagePage';
import { WebhooksPage } from './WebhooksPage';
import { Link } from './widgets';

const LANG_KEY = 'sello-panel-lang';

function initialLang(): Lang {
  const kept = window.localStorage.getItem(LANG_KEY);
  return kept === 'es' || kept === 'en' ? kept : browserLang();
}

export function PanelApp() {
  const route = useRoute();
  const [lang, setLangState] = useState<Lang>(initialLang);
  const setLang = useCallback((l: Lang) => {
    window.localStorage.setItem(LANG_KEY, l);
    setLangState(l);
  }, []);
  const [session, setSession] = useState<Session | null>(null);
  const zone = session?.account.time_zone;
  const i18n = useMemo(() => panelWords(lang, zone), [lang, zone]);
  const [ended, setEnded] = useState(false);
  const t = i18n.t;

  useEffect(() => {
    document.documentElement.lang = lang;
  }, [lang]);

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

  const titles: Record<string, string> = {
    'sign-in': t.signInTitle,
    documents: t.documentsTitle,
    document: t.documentsTitle,
    sets: t.setsTitle,
    templates: t.templatesTitle,
    webhooks: t.webhooksTitle,
    keys: t.keysTitle,
    usage: t.usageTitle,
  };
  useEffect(() => {
    document.title = `${titles[route.page]} · Sello`;
  });

  return (
    <PanelI18n.Provider value={i18n}>
      <a className="skip-link" href="#content">
        {t.skip}
      </a>
      <header className="header panel-header">
        <span className="brand">{t.brand}</span>
        <span className="panel-account">{session ? session.account.name : t.panel}</span>
        <LanguageSwitch lang={lang} label={t.languageLabel} onChange={setLang} />
        {session && (
          <button type="button" className="button button-secondary button-small" onClick={signOut} data-testid="sign-out">
            {t.signOut}
          </button>
        )}
      </header>
      {session && route.page !== 'sign-in' && (
        <nav className="panel-nav" aria-label={t.nav}>
          {(
            [
              ['documents', '/panel', t.navDocuments],
              ['sets', '/panel/sets', t.navSets],
              ['templates', '/panel/templates', t.navTemplates],
              ['webhooks', '/panel/webhooks', t.navWebhooks],
              ['keys', '/panel/keys', t.navKeys],
              ['usage', '/panel/usage', t.navUsage],
            ] as const
          ).map(([page, href, label]) => {
            const current = route.page === page || (page === 'documents' && route.page === 'document');
            return (
              <Link key={page} href={href} aria-current={current ? 'page' : undefined} className="nav-link">
                {label}
              </Link>
            );
          })}
        </nav>
      )}
      <main className="main panel-main" id="content">
        {route.page === 'sign-in' ? (
          <SignInPage onSignedIn={signedIn} ended={ended} />
        ) : !session ? (
          <p className="loading">{t.loading}</p>
        ) : route.page === 'document' ? (
          <DocumentPage key={route.ticket} ticket={route.ticket} />
        ) : route.page === 'sets' ? (
          <SetsPage />
        ) : route.page === 'templates' ? (
          <TemplatesPage />
        ) : route.page === 'webhooks' ? (
          <WebhooksPage />
        ) : route.page === 'keys' ? (
          <KeysPage />
        ) : route.page === 'usage' ? (
          <UsagePage />
        ) : (
          <DocumentsPage />
        )}
        {session && route.page !== 'sign-in' && (
          <p className="hint zone-note" data-testid="zone-note">
            {t.zoneNote(session.account.time_zone)}
          </p>
        )}
      </main>
    </PanelI18n.Provider>
  );
}

function LanguageSwitch({ lang, label, onChange }: { lang: Lang; label: string; onChange: (l: Lang) => void }) {
  return (
    // biome-ignore lint/a11y/useSemanticElements: a pair of toggle buttons, not a form fieldset
    <div className="lang-switch" role="group" aria-label={label}>
      {(Object.keys(LANGUAGE_NAMES) as Lang[]).map((l) => (
        <button
          key={l}
          type="button"
          lang={l}
          className="lang-option"
          aria-pressed={l === lang}
          onClick={() => onChange(l)}
          data-testid={`lang-${l}`}
        >
          {LANGUAGE_NAMES[l]}
        </button>
      ))}
    </div>
  );
}
