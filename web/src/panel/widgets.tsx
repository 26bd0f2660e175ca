// Small pieces every panel page uses: in-app links, the page heading that takes focus when the page
// changes (so a screen reader announces it), the error banner, a value shown once with a copy
// button, a state badge, and the loading of a page's data or of one row's details.
import { type AnchorHTMLAttributes, type MouseEvent, type ReactNode, useEffect, useRef, useState } from 'react';
import { PanelError } from './api';
import { usePanelI18n } from './panel-i18n';
import { navigate } from './router';

/** A link inside the panel: followed without a reload (a modified click opens a tab as usual). */
export function Link({ href, children, ...rest }: AnchorHTMLAttributes<HTMLAnchorElement> & { href: string }) {
  const follow = (e: MouseEvent<HTMLAnchorElement>) => {
    if (e.button === 0 && !e.metaKey && !e.ctrlKey && !e.shiftKey && !e.altKey) {
      e.preventDefault();
      navigate(href);
    }
  };
  return (
    <a href={href} {...rest} onClick={follow}>
      {children}
    </a>
  );
}

export function PageHeading({ children }: { children: ReactNode }) {
  const ref = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    ref.current?.focus();
  }, []);
  return (
    <h1 className="page-title" tabIndex={-1} ref={ref}>
      {children}
    </h1>
  );
}

export function ErrorBox({ error, onDismiss }: { error: unknown; onDismiss?: () => void }) {
  const { t } = usePanelI18n();
  if (!error) {
    return null;
  }
  const message = error instanceof PanelError ? error.message : String((error as Error).message ?? error);
  return (
    <div className="banner banner-error" role="alert">
      <div>
        <p className="banner-title">{t.errorTitle}</p>
        <p className="banner-detail">{message}</p>
      </div>
      {onDismiss && (
        <button type="button" className="button button-secondary" onClick={onDismiss}>
          {t.dismiss}
        </button>
      )}
    </div>
  );
}

export function ShownOnce({ label, value, testId }: { label: string; value: string; testId: string }) {
  const { t } = usePanelI18n();
  const [copied, setCopied] = useState(false);
  return (
    <div className="shown-once" role="status">
      <p>{label}</p>
      <code className="secret" data-testid={testId}>
        {value}
      </code>
      <button
        type="button"
        className="button button-secondary"
        onClick={() => {
          navigator.clipboard?.writeText(value).then(
            () => setCopied(true),
            () => setCopied(false),
          );
        }}
      >
        {copied ? t.copied : t.copy}
      </button>
    </div>
  );
}

export function Badge({ kind, children }: { kind: string; children: ReactNode }) {
  return <span className={`badge badge-${kind}`}>{children}</span>;
}

/** Loads data for a page, with its loading and error states; `reload` fetches again. */
export function useLoad<T>(load: () => Promise<T>, deps: unknown[]): { data: T | null; error: unknown; reload: () => void } {
  const [data, setData] = useState<T | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [round, setRound] = useState(0);
  // biome-ignore lint/correctness/useExhaustiveDependencies: the caller names what the load depends on
  useEffect(() => {
    let live = true;
    setError(null);
    load().then(
      (d) => live && setData(d),
      (e: unknown) => live && setError(e),
    );
    return () => {
      live = false;
    };
  }, [...deps, round]);
  return { data, error, reload: () => setRound((r) => r + 1) };
}

/**
 * One row of a list opened in place (a set's documents, a template's fields): `show` fetches it, or
 * closes it when it is the one open; `error` is the fetch's, until `dismiss`.
 */
export function useOpened<T>(fetch: (key: string) => Promise<T>, keyOf: (item: T) => string) {
  const [open, setOpen] = useState<T | null>(null);
  const [error, setError] = useState<unknown>(null);
  const show = async (key: string) => {
    setError(null);
    try {
      setOpen(open && keyOf(open) === key ? null : await fetch(key));
    } catch (err) {
      setError(err);
    }
  };
  return { open, error, show, isOpen: (key: string) => !!open && keyOf(open) === key, dismiss: () => setError(null) };
}
