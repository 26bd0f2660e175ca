// The errors the domain raises: AppError with a code of the registry (each listed once, with when
// it happens, in schemas/error-codes.ts); http/errors.ts is the only place that turns a code into
// an HTTP status.
import type { ErrorCode } from '../schemas/error-codes.js';

// The registry itself is with the API's shapes (schemas/error-codes.ts): the client and the
// OpenAPI document read it too.
export { ERROR_CODES, type ErrorCode } from '../schemas/error-codes.js';

export class AppError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details?: unknown,
    /** What went wrong underneath, for the server's log only (never sent to the client). */
    cause?: unknown,
  ) {
    super(message, cause === undefined ? undefined : { cause });
    this.name = 'AppError';
  }
}

/** Shorthand for the most common error: a request field is invalid. */
export function invalid(field: string, rule: string, details?: unknown): AppError {
  return new AppError('INVALID_INPUT', `${field}: ${rule}`, { field, ...(details as object) });
}
