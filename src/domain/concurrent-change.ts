// A transaction PostgreSQL rolled back because of a concurrent one (a deadlock or a serialization
// failure): nothing was applied, and the same request sent again may succeed. http/errors.ts
// answers it 503 with Retry-After instead of 500.
import { isTransientConflict } from '../store/transient-conflict.js';

/** True for an error of a transaction rolled back by a concurrent one (retryable as a whole). */
export function isConcurrentChangeConflict(err: unknown): boolean {
  return isTransientConflict(err);
}
