// The only place where error codes become HTTP statuses, and where every error body is shaped:
// {"error": {"code", "message", "details"}} for every status but 401 (whose body is empty).
import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import type { ErrorObject } from 'ajv';
import { inputError } from '../domain/check-input.js';
import { isConcurrentChangeConflict } from '../domain/concurrent-change.js';
import { AppError, type ErrorCode } from '../domain/errors.js';
import { Unauthorized, sendUnauthorized } from './auth.js';
import { ServiceKeyUnavailableError } from '../pki/service-key.js';

const STATUS: Record<ErrorCode, number> = {
  INVALID_INPUT: 400,
  INVALID_JSON: 400,
  INVALID_ORIGIN: 400,
  INVALID_STICKER: 400,
  TEMPLATE_INVALID: 400,
  INVALID_FIELD_VALUE: 400,
  REQUIRED_FIELD_MISSING: 400,
  URL_NOT_ALLOWED: 400,
  URL_FETCH_FAILED: 400,
  DOCUMENT_TOO_LARGE: 413,
  BODY_TOO_LARGE: 413,
  RANGE_NOT_SATISFIABLE: 416,
  PDF_INVALID: 422,
  PDF_ENCRYPTED: 422,
  PDF_TOO_MANY_PAGES: 422,
  PDF_TOO_COMPLEX: 422,
  IMAGE_QUALITY: 422,
  IMAGE_TOO_COMPLEX: 422,
  UNSUPPORTED_MEDIA_TYPE: 415,
  ACCOUNT_NOT_FOUND: 404,
  PACKAGE_EXHAUSTED: 402,
  PACKAGE_NOT_FOUND: 404,
  TEMPLATE_NOT_FOUND: 404,
  DOCUMENT_NOT_FOUND: 404,
  CERTIFIED_EMAIL_NOT_FOUND: 404,
  DOCUMENT_SET_NOT_FOUND: 404,
  ROUTE_NOT_FOUND: 404,
  CALLBACK_SIGNATURE_INVALID: 403,
  SIGNING_LINK_INVALID: 404,
  DOCUMENT_NOT_SIGNABLE: 409,
  ALREADY_SIGNED: 409,
  NOT_YOUR_TURN: 409,
  AUTHORITY_NOT_AVAILABLE: 409,
  SAT_EFIRMA_REQUIRED: 409,
  SAT_CERTIFICATE_REFUSED: 422,
  SAT_SIGNATURE_INVALID: 422,
  CERTIFICATE_REFUSED: 422,
  CERTIFICATE_SIGNATURE_INVALID: 422,
  CERTIFICATE_REQUIRED: 409,
  CSC_PROVIDER_ERROR: 502,
  CSC_AUTHORIZATION_INVALID: 400,
  PREPARATION_NOT_FOUND: 404,
  PREPARATION_EXPIRED: 409,
  PREPARATION_USED: 409,
  SIGNATURE_INVALID: 400,
  VERIFICATION_REQUIRED: 409,
  OTP_INVALID: 400,
  OTP_EXPIRED: 409,
  PDF_NOT_SIGNABLE: 422,
  SIGNING_FAILED: 503,
  STAMP_PROVIDER_UNAVAILABLE: 503,
  STAMP_REFUSED: 503,
  HEADERS_TOO_LARGE: 431,
  BAD_REQUEST: 400,
  PATH_TOO_LONG: 414,
  CLOCK_BEHIND: 503,
  NOTIFICATION_NOT_FOUND: 404,
  BULK_NOT_FOUND: 404,
  IDEMPOTENCY_KEY_REUSED: 409,
  SUBSCRIPTION_NOT_FOUND: 404,
  DELIVERY_NOT_FOUND: 404,
  REVIEW_NOT_FOUND: 404,
  PROVIDER_NOT_AVAILABLE: 409,
  PROVIDER_UNAVAILABLE: 502,
  IDENTITY_VERIFICATION_REQUIRED: 409,
  IDENTITY_VERIFICATION_FAILED: 409,
  TOO_MANY_SUBSCRIPTIONS: 409,
  DOCUMENT_SET_CLOSED: 409,
  WORKFLOW_NOT_CHANGEABLE: 409,
  WORKFLOW_ORDER_LOCKED: 409,
  SIGNER_NOT_FOUND: 404,
  SIGNER_NOT_EDITABLE: 409,
  SIGNER_CONFLICT: 409,
  DOCUMENT_SET_FULL: 409,
  SET_NOT_READY: 409,
  INVALID_STATE: 409,
  NOT_YET_AVAILABLE: 409,
  DOCUMENT_DELETED: 409,
  RATE_LIMITED: 429,
  DOCUMENT_NOT_COMPLETED: 409,
  ENDORSEMENT_PENDING: 409,
  NOT_HOLDER: 409,
  ENDORSEMENT_NOT_FOUND: 404,
  ENDORSEMENT_NOT_PENDING: 409,
  ENDORSEMENT_WITHDRAWN: 409,
  SIGN_IN_LINK_INVALID: 401,
  PANEL_SESSION_REQUIRED: 401,
  CSRF_TOKEN_INVALID: 403,
  API_KEY_NOT_FOUND: 404,
  WEBHOOK_NOT_SET: 409,
  SERVICE_UNAVAILABLE: 503,
  SERVICE_KEY_UNAVAILABLE: 503,
  RENDER_TIMEOUT: 503,
  RENDERER_UNAVAILABLE: 503,
  INTERNAL: 500,
};

/**
 * Node's HTTP parser refuses some requests before Fastify sees them (a NUL in a header, headers
 * over the size limit, a malformed request line). They get the same error shape as every other
 * error, then the connection closes: after a parse error the stream cannot be trusted.
 */
export function answerClientError(err: Error & { code?: string }, socket: Socket): void {
  if (!socket.writable) {
    return;
  }
  const tooLarge = err.code === 'HPE_HEADER_OVERFLOW';
  const timeout = err.code === 'ERR_HTTP_REQUEST_TIMEOUT';
  const status = tooLarge ? 431 : timeout ? 408 : 400;
  const body = JSON.stringify(
    tooLarge
      ? errorBody('HEADERS_TOO_LARGE', 'the request headers are larger than the server accepts')
      : timeout
        ? errorBody('BAD_REQUEST', 'the request was not received in time')
        : errorBody(
            'BAD_REQUEST',
            'the request is not valid HTTP (a header holds a forbidden character, or the request line is malformed)',
          ),
  );
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json; charset=utf-8\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}

/**
 * Errors the router raises before any route runs: a path that is not valid percent-encoded UTF-8, a
 * parameter over maxParamLength. Fastify's own shape would echo the whole path; ours does not.
 */
export function handleFrameworkError(err: FastifyError, req: FastifyRequest, reply: FastifyReply) {
  if (err.code === 'FST_ERR_BAD_URL') {
    return reply.code(400).send(errorBody('BAD_REQUEST', 'the path is not valid percent-encoded UTF-8'));
  }
  if (err.code === 'FST_ERR_MAX_PARAM_LENGTH') {
    return reply.code(414).send(errorBody('PATH_TOO_LONG', 'a segment of the path is longer than any identifier can be'));
  }
  return handleError(err, req, reply);
}

export function statusOf(code: ErrorCode): number {
  return STATUS[code];
}

export function errorBody(code: ErrorCode, message: string, details?: unknown) {
  return { error: details === undefined ? { code, message } : { code, message, details } };
}

/**
 * The 401 stays empty (decisions.md); the reason goes to the log at info level so the operator, and
 * through them the integrator, can see what was wrong: unknown web id, inactive key, or which
 * strings the signature was compared with.
 */
export function logUnauthorized(req: FastifyRequest, err: Unauthorized): void {
  if (err.failure) {
    req.log.info({ auth: err.failure }, err.message);
  }
}

/** Fastify error handler: AppError as mapped, schema failures as 400, anything else as 500. */
export function handleError(err: FastifyError | AppError | Error, req: FastifyRequest, reply: FastifyReply) {
  if (err instanceof Unauthorized) {
    logUnauthorized(req, err);
    return sendUnauthorized(reply);
  }
  // Before AppError: a signature that failed because the token is gone says so, whatever wrapped it.
  const keyDown = serviceKeyDown(err);
  if (keyDown) {
    req.log.error({ err }, 'service key unavailable');
    // The token's own words (labels, return codes) go to the log, not to the client.
    const message = `the service's ${keyDown.role} key is unavailable; nothing was signed, retry later`;
    return reply.code(503).send(errorBody('SERVICE_KEY_UNAVAILABLE', message, { request_id: req.id, key: keyDown.role }));
  }
  if (err instanceof AppError) {
    if (statusOf(err.code) >= 500) {
      req.log.warn({ code: err.code, cause: err.cause }, err.message);
    }
    return reply.code(statusOf(err.code)).send(errorBody(err.code, err.message, err.details));
  }
  const fe = err as FastifyError;
  if (fe.validation) {
    const where = fe.validationContext ?? 'body';
    const e = inputError(where === 'body' ? '' : where, fe.validation as ErrorObject[]);
    return reply.code(400).send(errorBody(e.code, e.message, e.details));
  }
  if (fe.code === 'FST_ERR_CTP_BODY_TOO_LARGE') {
    // The limit is named: a client whose document is refused can tell how far over it is.
    const limit = req.routeOptions.bodyLimit;
    return reply.code(413).send(
      errorBody('BODY_TOO_LARGE', `the request body is larger than the limit of ${+(limit / 1048576).toFixed(1)} MB`, {
        field: 'body',
        limit_bytes: limit,
      }),
    );
  }
  if (fe.code === 'FST_REQ_FILE_TOO_LARGE') {
    return reply.code(413).send(errorBody('BODY_TOO_LARGE', 'the request body is larger than the limit'));
  }
  if (fe.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE' || fe.code === 'FST_INVALID_MULTIPART_CONTENT_TYPE') {
    return reply.code(415).send(errorBody('UNSUPPORTED_MEDIA_TYPE', fe.message));
  }
  if (fe.code === 'FST_ERR_CTP_EMPTY_JSON_BODY' || fe.code === 'FST_ERR_CTP_INVALID_JSON_BODY') {
    return reply.code(400).send(errorBody('INVALID_JSON', 'the body is not valid JSON'));
  }
  if (fe.statusCode === 413) {
    return reply.code(413).send(errorBody('BODY_TOO_LARGE', fe.message));
  }
  if (fe.statusCode === 415) {
    return reply.code(415).send(errorBody('UNSUPPORTED_MEDIA_TYPE', fe.message));
  }
  if (typeof fe.statusCode === 'number' && fe.statusCode >= 400 && fe.statusCode < 500) {
    return reply.code(fe.statusCode).send(errorBody('INVALID_INPUT', fe.message));
  }
  if (isDatabaseDown(err)) {
    req.log.error({ err }, 'database unavailable');
    return reply.code(503).send(errorBody('SERVICE_UNAVAILABLE', 'the database is not reachable; retry shortly', { request_id: req.id }));
  }
  if (isConcurrentChangeConflict(err)) {
    req.log.warn({ err }, 'transaction rolled back by a concurrent one');
    return reply
      .code(503)
      .header('retry-after', '1')
      .send(errorBody('SERVICE_UNAVAILABLE', 'the request met a concurrent change and was not applied; retry it', { request_id: req.id }));
  }
  req.log.error({ err }, 'unhandled error');
  return reply
    .code(500)
    .send(errorBody('INTERNAL', `internal error; quote request id ${req.id} when reporting it`, { request_id: req.id }));
}

/** A JSON pointer as the use cases name fields: stickers[0].rect.ty (the body's own fields unprefixed). */
/** A service key the token cannot reach, thrown as it is or as the cause of a signing failure. */
function serviceKeyDown(err: unknown): ServiceKeyUnavailableError | undefined {
  for (let e: unknown = err, depth = 0; e instanceof Error && depth < 4; e = e.cause, depth += 1) {
    if (e instanceof ServiceKeyUnavailableError) {
      return e;
    }
  }
  return undefined;
}

/** Connection-level failures of PostgreSQL (refused, reset, shutting down), not query errors. */
function isDatabaseDown(err: unknown): boolean {
  const code = (err as { code?: unknown }).code;
  if (typeof code !== 'string') {
    return false;
  }
  // Node socket errors, and SQLSTATE class 08 (connection exception) and 57P0x (shutdown).
  return ['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE'].includes(code) || code.startsWith('08') || /^57P0[1-3]$/.test(code);
}
