// A bulk run as the service has it, asked again every 1.5 s while it runs and no more once it has
// completed or stopped (or the page is left).
import { useEffect, useState } from 'react';
import { api } from '../api';

type BulkRun = Awaited<ReturnType<typeof api.bulkRun>>;

const EVERY_MS = 1500;

export function useBulkRun(bulkId: string, offset: number) {
  const [run, setRun] = useState<BulkRun | null>(null);
  const [error, setError] = useState<unknown>(null);
  useEffect(() => {
    let live = true;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const ask = async () => {
      try {
        const r = await api.bulkRun(bulkId, { offset: String(offset) });
        if (!live) {
          return;
        }
        setRun(r);
        setError(null);
        if (r.state === 'running') {
          timer = setTimeout(ask, EVERY_MS);
        }
      } catch (err) {
        if (live) {
          setError(err);
        }
      }
    };
    void ask();
    return () => {
      live = false;
      clearTimeout(timer);
    };
  }, [bulkId, offset]);
  return { run, error };
}
