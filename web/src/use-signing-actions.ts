// The state a signing page keeps around its two actions (sign, reject): which one is running, the
// error to show, the words for screen readers, and the reject dialog. A refusal that means the
// state changed under the page (409, 404) loads the page's data again, so it shows the new state.
import { useState } from 'react';
import type { ApiError } from './api';
import { asApiError } from './use-page-data';

export function useSigningActions(load: () => Promise<void>) {
  const [error, setError] = useState<ApiError | null>(null);
  const [busy, setBusy] = useState<'sign' | 'reject' | null>(null);
  const [rejectOpen, setRejectOpen] = useState(false);
  const [status, setStatus] = useState('');

  /** Runs one action: busy while it runs, its failure shown; the dialog closes after a rejection. */
  const run = async (kind: 'sign' | 'reject', announce: string, action: () => Promise<void>) => {
    setBusy(kind);
    setError(null);
    setStatus(announce);
    try {
      await action();
      setRejectOpen(false);
    } catch (err) {
      setRejectOpen(false);
      const e = asApiError(err);
      setError(e);
      setStatus('');
      if (e.status === 409 || e.status === 404) {
        await load();
      }
    } finally {
      setBusy(null);
    }
  };

  return { error, setError, busy, rejectOpen, setRejectOpen, status, setStatus, run };
}
