// A page whose data has not loaded: "loading", or the error with a retry, or — for a link that is
// not valid — the page that says so. Each page passes its own texts.
import type { ApiError } from '../api';
import { ErrorBanner } from './ErrorBanner';
import { StateView } from './Outcome';

export interface PageLoadingTexts {
  loading: string;
  retry: string;
  invalidTitle: string;
  invalidText: string;
}

export function PageLoading(p: {
  error: ApiError | null;
  invalid: (e: ApiError) => boolean;
  onRetry: () => void;
  texts: PageLoadingTexts;
}) {
  if (!p.error) {
    return (
      <p className="loading" role="status">
        {p.texts.loading}
      </p>
    );
  }
  if (p.invalid(p.error)) {
    return <StateView title={p.texts.invalidTitle} text={p.texts.invalidText} state="link-invalid" />;
  }
  return (
    <>
      <ErrorBanner error={p.error} />
      <button type="button" className="button button-primary" onClick={p.onRetry}>
        {p.texts.retry}
      </button>
    </>
  );
}
