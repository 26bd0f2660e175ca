// The account panel: the sign-in page, or — with a session — the header with the account, the
// sections and the language switch around the current section.
import { useEffect, useMemo } from 'react';
import type { Lang } from '../api';
import { LANGUAGE_NAMES } from '../i18n';
import { DocumentPage } from './DocumentPage';
import { DocumentsPage } from './DocumentsPage';
import { KeysPage } from './KeysPage';
import { PreparePage } from './prepare/PreparePage';
import { PanelI18n, panelWords, usePanelI18n } from './panel-i18n';
import { type Route, useRoute } from './router';
import { SetsPage } from './SetsPage';
import { SignInPage } from './SignInPage';
import { TemplatesPage } from './TemplatesPage';
import { usePanelLang, usePanelSession } from './use-panel-session';
import { UsagePage } from './UsagePage';
import { WebhooksPage } from './WebhooksPage';
import { BrandPage } from './BrandPage';
import { BulkPage } from './bulk/BulkPage';
import { BulkRunPage } from './bulk/BulkRunPage';
import { useOperatorBrand } from './use-operator-brand';
import { Link } from './widgets';

export function PanelApp() {
  const route = useRoute();
  const { lang, setLang } = usePanelLang();
  const { session, ended, signedIn, signOut } = usePanelSession(route);
  const zone = session?.account.time_zone;
  const i18n = useMemo(() => panelWords(lang, zone), [lang, zone]);
  const t = i18n.t;

  const titles: Record<string, string> = {
    'sign-in': t.signInTitle,
    documents: t.documentsTitle,
    document: t.documentsTitle,
    sets: t.setsTitle,
    templates: t.templatesTitle,
    webhooks: t.webhooksTitle,
    keys: t.keysTitle,
    usage: t.usageTitle,
    brand: t.brandTitle,
    bulk: t.bulkTitle,
    'bulk-run': t.bulkTitle,
    send: t.prepareTitle,
  };
  // The panel is the operator's: its name, logo and colour (SELLO_OPERATOR_*), the sign-in page's
  // above all, which belongs to no account.
  const operator = useOperatorBrand();
  const operatorName = operator?.name ?? t.brand;
  useEffect(() => {
    document.title = `${titles[route.page]} · ${operatorName}`;
  });

  return (
    <PanelI18n.Provider value={i18n}>
      <a className="skip-link" href="#content">
        {t.skip}
      </a>
      <header className={operator?.colour ? 'header panel-header header-branded' : 'header panel-header'} data-testid="panel-header">
        {operator?.logo && <img className="header-logo" src={operator.logo} alt="" data-testid="operator-logo" />}
        <span className="brand" data-testid="operator-name">
          {operatorName}
        </span>
        <span className="panel-account">{session ? session.account.name : t.panel}</span>
        <LanguageSwitch lang={lang} label={t.languageLabel} onChange={setLang} />
        {session && (
          <button type="button" className="button button-secondary button-small" onClick={signOut} data-testid="sign-out">
            {t.signOut}
          </button>
        )}
      </header>
      {session && route.page !== 'sign-in' && <PanelNav route={route} />}
      <main className="main panel-main" id="content">
        {route.page === 'sign-in' ? (
          <SignInPage onSignedIn={signedIn} ended={ended} />
        ) : !session ? (
          <p className="loading">{t.loading}</p>
        ) : (
          <Section route={route} zone={session.account.time_zone} />
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

/** The sections, the current one marked. */
function PanelNav({ route }: { route: Route }) {
  const { t } = usePanelI18n();
  return (
    <nav className="panel-nav" aria-label={t.nav}>
      {(
        [
          ['documents', '/panel', t.navDocuments],
          ['send', '/panel/send', t.navSend],
          ['bulk', '/panel/bulk', t.navBulk],
          ['sets', '/panel/sets', t.navSets],
          ['templates', '/panel/templates', t.navTemplates],
          ['webhooks', '/panel/webhooks', t.navWebhooks],
          ['keys', '/panel/keys', t.navKeys],
          ['usage', '/panel/usage', t.navUsage],
          ['brand', '/panel/brand', t.navBrand],
        ] as const
      ).map(([page, href, label]) => {
        const current =
          route.page === page || (page === 'documents' && route.page === 'document') || (page === 'bulk' && route.page === 'bulk-run');
        return (
          <Link key={page} href={href} aria-current={current ? 'page' : undefined} className="nav-link">
            {label}
          </Link>
        );
      })}
    </nav>
  );
}

/** The section the address names, for an account signed in. */
function Section({ route, zone }: { route: Route; zone: string }) {
  switch (route.page) {
    case 'send':
      return <PreparePage zone={zone} />;
    case 'document':
      return <DocumentPage key={route.ticket} ticket={route.ticket} />;
    case 'sets':
      return <SetsPage />;
    case 'templates':
      return <TemplatesPage />;
    case 'webhooks':
      return <WebhooksPage />;
    case 'keys':
      return <KeysPage />;
    case 'usage':
      return <UsagePage />;
    case 'brand':
      return <BrandPage />;
    case 'bulk':
      return <BulkPage />;
    case 'bulk-run':
      return <BulkRunPage key={route.bulkId} bulkId={route.bulkId} />;
    default:
      return <DocumentsPage />;
  }
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
