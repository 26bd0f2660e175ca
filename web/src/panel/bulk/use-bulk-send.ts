// Sending a bulk run once: the Idempotency-Key is made when the rows are, and kept until they
// change, so a second click, or pressing Send again after an answer lost on the way, asks for the
// same run, and the service answers the run it already made instead of making a second one.
import { useMemo, useState } from 'react';
import { api } from '../api';
import { navigate } from '../router';
import type { DraftPayload } from '../draft-store';

/** 128 random bits as hex: crypto.randomUUID is missing where the panel is served over plain http. */
function newKey(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return `panel-${Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('')}`;
}

export function useBulkSend(payload: DraftPayload, rows: Record<string, unknown>[] | null) {
  // biome-ignore lint/correctness/useExhaustiveDependencies: a new key for new rows, the same for the same rows
  const key = useMemo(newKey, [rows]);
  const [sending, setSending] = useState(false);
  const [error, setError] = useState<unknown>(null);

  const send = async () => {
    if (!rows || sending) {
      return;
    }
    setSending(true);
    setError(null);
    try {
      const started = await api.startBulk({ ...payload, rows }, key);
      navigate(`/panel/bulk/${encodeURIComponent(started.bulk_id)}`);
    } catch (err) {
      setError(err);
      setSending(false);
    }
  };

  return { send, sending, error, dismiss: () => setError(null) };
}
