// PostgreSQL aborts a transaction that lost a deadlock (SQLSTATE 40P01) or a serialization check
// (40001) and rolls it back whole: nothing it wrote remains, so running it again is safe. The lock
// orders of the signing and set paths are chosen to avoid deadlocks (see append-history.ts and
// set-flow-repo.ts), but a graph of row, advisory and job-queue locks across concurrent signatures,
// rejections and jobs cannot be proven free of them; a lost race must cost a retry, never a 500.

/** True when `err` is PostgreSQL's "this transaction was rolled back because of a concurrent one". */
export function isTransientConflict(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return code === '40P01' || code === '40001';
}

/**
 * Runs `work` (one whole transaction, with no effect outside the database that a retry would
 * repeat harmfully) again when PostgreSQL rolled it back for a concurrent transaction.
 */
export async function retryTransientConflict<T>(work: () => Promise<T>, attempts = 3): Promise<T> {
  for (let i = 1; ; i++) {
    try {
      return await work();
    } catch (err) {
      if (i >= attempts || !isTransientConflict(err)) {
        throw err;
      }
    }
  }
}
