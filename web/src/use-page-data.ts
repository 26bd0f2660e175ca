// What every page of the signer app does first: load its data from the API, keep the error of a
// failed load (to show it with a retry), and load again when asked (after a 409 or 404 that means
// the state changed under the page).
import { useCallback, useEffect, useState } from 'react';
import { ApiError } from './api';
import { mark } from './timing';

/** Any failure as an ApiError: network failures get status 0 and code NETWORK. */
export function asApiError(err: unknown): ApiError {
  return err instanceof ApiError ? err : new ApiError(0, 'NETWORK', String(err));
}

export function usePageData<T>(fetch: () => Promise<T>, key: string) {
  const [info, setInfo] = useState<T | null>(null);
  const [loadError, setLoadError] = useState<ApiError | null>(null);
  // `key` (the token or ticket) is what the data depends on; `fetch` is a fresh closure each render.
  // biome-ignore lint/correctness/useExhaustiveDependencies: `key` is the dependency; `fetch` is a new closure each render
  const load = useCallback(async () => {
    try {
      setInfo(await fetch());
      mark('info');
      setLoadError(null);
    } catch (err) {
      setLoadError(asApiError(err));
    }
  }, [key]);
  useEffect(() => {
    void load();
  }, [load]);
  return { info, setInfo, loadError, load };
}
