// What every page of the signer app shows around its own content: the page's language and title
// on the document, the skip link to the signing form, the header with the document's (or set's)
// name, the error banner, the loading / failed / invalid-link states until the data is there, and
// the live region where actions announce their outcome to screen readers.
import { type ReactNode, useEffect, useMemo, useState } from 'react';
import type { ApiError, Lang } from '../api';
import { browserLang, type Dict, dictionaries, I18n, LANGUAGE_NAMES } from '../i18n';
import { ErrorBanner } from './ErrorBanner';
import { PageLoading, type PageLoadingTexts } from './PageLoading';

/** The texts of a document's pages (the set page has its own, set-i18n.ts). */
export const documentDict = (lang: Lang): Dict => dictionaries[lang];

/** The page's language and texts; `setLang` is the signer's choice through the language switch. */
export interface PageI18n {
  lang: Lang;
  t: Dict;
  setLang?: (lang: Lang) => void;
}

/**
 * The page's language: the signer's choice on the switch; else the workflow's once the data says;
 * else the browser's, falling back to the service's default language (`fallback`, from the data).
 * `dict` must be a function defined once (module level), not a new closure at each render.
 */
export function usePageI18n(language: Lang | null | undefined, dict: (lang: Lang) => Dict, fallback?: Lang): PageI18n {
  const [chosen, setLang] = useState<Lang | null>(null);
  const lang = chosen ?? language ?? browserLang(undefined, fallback);
  return useMemo(() => ({ lang, t: dict(lang), setLang }), [lang, dict]);
}

/** The sender's brand as the page data gives it (src/domain/signing/sender.ts). */
export interface PageBrand {
  name: string;
  logo: string | null;
  brand_name: string | null;
  brand_colour: string | null;
  hide_sello: boolean;
}

export interface PageShellProps {
  i18n: PageI18n;
  /**
   * The sender's brand; 'loading' while the data that says it loads (no name shown yet, so a brand
   * that hides Sello's name never shows it); null or absent where there is none (Sello's header).
   */
  brand?: PageBrand | null | 'loading';
  /** The name in the header (h1); the page's own title until its data is loaded. */
  heading: string;
  /** The browser tab's title. */
  documentTitle: string;
  /** Whether the skip link to the signing form (#signing) is offered: only while the signer can sign. */
  skipToSign?: boolean;
  /** Until the data is loaded, the loading state, or the failed load with a retry, or the invalid link. */
  load: { loaded: boolean; error: ApiError | null; invalid: (e: ApiError) => boolean; onRetry: () => void; texts: PageLoadingTexts };
  /** An action's error, above the content, until dismissed. */
  error?: ApiError | null;
  onDismissError?: () => void;
  /** The live region's text; pages that announce nothing leave it out. */
  status?: string;
  children?: ReactNode;
}

export function PageShell(p: PageShellProps) {
  const { lang, t } = p.i18n;
  useEffect(() => {
    document.documentElement.lang = lang;
    document.title = p.documentTitle;
  }, [lang, p.documentTitle]);
  const brand = p.brand ?? null;
  const colour = brand !== null && brand !== 'loading' ? brand.brand_colour : null;
  useEffect(() => {
    // The buttons, links and header all take --primary; the account's colour was checked to keep
    // white text on it readable (4.5:1, account-brand.ts).
    if (colour) {
      document.documentElement.style.setProperty('--primary', colour);
    } else {
      document.documentElement.style.removeProperty('--primary');
    }
  }, [colour]);
  // The name in the header: the brand's, else Sello's unless hidden (then the account's own name).
  const brandText = brand === 'loading' ? '' : brand === null ? 'Sello' : (brand.brand_name ?? (brand.hide_sello ? brand.name : 'Sello'));
  const logo = brand !== null && brand !== 'loading' ? brand.logo : null;

  return (
    <I18n.Provider value={p.i18n}>
      {p.skipToSign && (
        <a className="skip-link" href="#signing">
          {t.skipToSign}
        </a>
      )}
      <header className={colour ? 'header header-branded' : 'header'} data-testid="page-header">
        {logo && <img className="header-logo" src={logo} alt="" data-testid="header-logo" />}
        {brandText && (
          <span className="brand" aria-hidden="true" data-testid="header-brand">
            {brandText}
          </span>
        )}
        <h1 className="doc-name">{p.heading}</h1>
        {p.i18n.setLang && <LanguageSwitch lang={lang} label={t.languageLabel} onChange={p.i18n.setLang} />}
      </header>
      <main className="main">
        {p.error && <ErrorBanner error={p.error} onDismiss={p.onDismissError} />}
        {p.load.loaded ? (
          p.children
        ) : (
          <PageLoading error={p.load.error} invalid={p.load.invalid} onRetry={p.load.onRetry} texts={p.load.texts} />
        )}
      </main>
      {p.status !== undefined && (
        <div className="visually-hidden" role="status" aria-live="polite" data-testid="live-status">
          {p.status}
        </div>
      )}
    </I18n.Provider>
  );
}

/** Two buttons, each language named in itself; the current one pressed. */
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
