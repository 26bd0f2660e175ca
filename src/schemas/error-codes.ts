// Every error code of the API, once, with when it happens: the registry the domain raises from
// (domain/errors.ts: AppError), http/errors.ts maps to statuses, and the OpenAPI document lists as
// ErrorResponse's codes. It is part of the API's shape, so it lives with the schemas and travels in
// the client package; it imports nothing.

export const ERROR_CODES = {
  /** A request field is missing, of the wrong type or out of range; the message names the field. */
  INVALID_INPUT: 'invalid input',
  /** The JSON body cannot be parsed. */
  INVALID_JSON: 'malformed JSON',
  /** The request's headers are larger than the server accepts. */
  HEADERS_TOO_LARGE: 'headers too large',
  /** The request could not be read as HTTP (a NUL or another forbidden character in a header, a malformed request line). */
  BAD_REQUEST: 'malformed request',
  /** A path segment is longer than any identifier can be (1,000 characters). */
  PATH_TOO_LONG: 'path too long',
  /** More than one, or none, of b64_doc, url_doc and template was sent. */
  INVALID_ORIGIN: 'document origin',
  /** A sticker breaks a rule (page, rect, authority, data); details name the index and the rule. */
  INVALID_STICKER: 'sticker rule',
  /** No template of that name in this account. */
  TEMPLATE_NOT_FOUND: 'unknown template',
  /** The template cannot be used: duplicate ids, no form fields, unreadable file, bad definition. */
  TEMPLATE_INVALID: 'unusable template',
  /** A value is not allowed for its template field (e.g. a choice outside its options), or a signer's field_values.<id> fails its field's format. */
  INVALID_FIELD_VALUE: 'field value',
  /** A required field the signer fills has no value (field_values.<id> absent, empty, or an unticked checkbox). */
  REQUIRED_FIELD_MISSING: 'required field empty',
  /** A renderer (Chromium, LibreOffice) did not finish in time and was stopped. */
  RENDER_TIMEOUT: 'render timeout',
  /** A renderer cannot run on this server (program missing). */
  RENDERER_UNAVAILABLE: 'renderer missing',
  /** `url_doc.url` is not an http(s) URL or resolves to an address the service refuses to reach. */
  URL_NOT_ALLOWED: 'refused URL',
  /** `url_doc.url` could not be fetched (network error, timeout, non-2xx answer). */
  URL_FETCH_FAILED: 'URL fetch failed',
  /** The document is larger than the configured limit. */
  DOCUMENT_TOO_LARGE: 'document too large',
  /** The request body is larger than the configured limit. */
  BODY_TOO_LARGE: 'body too large',
  /** A Range header asks for bytes the file does not have (past its end); details give its size. */
  RANGE_NOT_SATISFIABLE: 'range outside the file',
  /** The bytes are not a PDF, or are damaged beyond a faithful reading. */
  PDF_INVALID: 'unreadable PDF',
  /** The PDF is encrypted (password or permissions); it cannot be signed as it is. */
  PDF_ENCRYPTED: 'encrypted PDF',
  /** The PDF has more pages than the configured limit. */
  PDF_TOO_MANY_PAGES: 'too many pages',
  /** Reading the PDF went past the reader's time, memory or decompression limit, and was stopped. */
  PDF_TOO_COMPLEX: 'PDF over reading limits',
  /** The request's Content-Type is not the one the operation takes. */
  UNSUPPORTED_MEDIA_TYPE: 'wrong media type',
  /** No account with that web id (CLI and operator paths). */
  ACCOUNT_NOT_FOUND: 'unknown account',
  /** The account's packages of the action's kind have no piece left (details.kind); nothing was done. */
  PACKAGE_EXHAUSTED: 'package exhausted',
  /** No package with that id in this account (command line). */
  PACKAGE_NOT_FOUND: 'unknown package',
  /** No document with that ticket in this account. */
  DOCUMENT_NOT_FOUND: 'unknown document',
  /** No certified email: an unknown ticket, another account's, a document created without certified_email, or a link or report that matches none. */
  CERTIFIED_EMAIL_NOT_FOUND: 'unknown certified email',
  /** No document set with that uuid in this account. */
  DOCUMENT_SET_NOT_FOUND: 'unknown set',
  /** No bulk run with that bulk_id in this account. */
  BULK_NOT_FOUND: 'unknown bulk run',
  /** An Idempotency-Key already used by this account with a different body. */
  IDEMPOTENCY_KEY_REUSED: 'idempotency key used with another body',
  /** No notification with that notification_id in this account. */
  NOTIFICATION_NOT_FOUND: 'unknown notification',
  /** No subscription with that id in this account (or it was deleted already). */
  SUBSCRIPTION_NOT_FOUND: 'unknown subscription',
  /** No webhook delivery with that id in this account. */
  DELIVERY_NOT_FOUND: 'unknown delivery',
  /** No identity review with that id in this account. */
  REVIEW_NOT_FOUND: 'unknown review',
  /** No identity verification provider is configured. */
  PROVIDER_NOT_AVAILABLE: 'no verification provider',
  /** The identity verification provider did not answer as expected. */
  PROVIDER_UNAVAILABLE: 'verification provider unavailable',
  /** An identity document photo is too blurred or has a reflection (details.problem: blurry or glare, the measure and the limit); take it again. */
  IMAGE_QUALITY: 'photo not usable',
  /** Decoding an identity evidence image went past the reader's time or memory limit, and was stopped. */
  IMAGE_TOO_COMPLEX: 'image over reading limits',
  /** The signer must have their identity verified before signing. */
  IDENTITY_VERIFICATION_REQUIRED: 'identity verification required',
  /** The signer's identity verification failed: they cannot sign. */
  IDENTITY_VERIFICATION_FAILED: 'identity verification failed',
  /** The account already holds the most active subscriptions allowed. */
  TOO_MANY_SUBSCRIPTIONS: 'subscription limit',
  /** A document was added to a set that is no longer OPEN. */
  DOCUMENT_SET_CLOSED: 'set closed',
  /** The set already holds the most documents allowed. */
  DOCUMENT_SET_FULL: 'set full',
  /** The set cannot be closed yet: no document, a document without signers, or a preloaded signer with no box. */
  SET_NOT_READY: 'set not ready',
  /** The operation does not apply to the document's current state (e.g. restore of a live document). */
  INVALID_STATE: 'state conflict',
  /** The requested rendition does not exist yet (e.g. `universal` before completion). */
  NOT_YET_AVAILABLE: 'not yet available',
  /** The document is deleted; restore it first. */
  DOCUMENT_DELETED: 'deleted document',
  /** The signing link is not valid (never issued, replaced, or mistyped). */
  SIGNING_LINK_INVALID: 'unknown signing link',
  /** The document cannot be signed or rejected in its state (completed, rejected, expired, cancelled, deleted, draft). */
  DOCUMENT_NOT_SIGNABLE: 'not signable',
  /** An ordered flow waits for an earlier signer: this one may look, not sign or reject yet. */
  NOT_YOUR_TURN: 'not your turn',
  /** This signer already signed (or rejected) the document. */
  ALREADY_SIGNED: 'already signed',
  /** The signer's authority (SMS, WHATSAPP, SAT, EMAIL codes) cannot be proven on this server yet. */
  AUTHORITY_NOT_AVAILABLE: 'authority not available',
  /** A SAT signer posted a drawn or typed signature: they sign with their e.firma (/sat/prepare, then /sat/finish). */
  SAT_EFIRMA_REQUIRED: 'sign with the e.firma',
  /** An EMAIL signer must prove the one-time code sent to their address before signing or rejecting. */
  VERIFICATION_REQUIRED: 'code not verified',
  /** The one-time code is wrong; details say how many attempts are left. */
  OTP_INVALID: 'wrong code',
  /** The one-time code expired, or too many wrong attempts used it up: ask for a new one. */
  OTP_EXPIRED: 'code expired',
  /** The signature sent (image or typed text) is not acceptable; the message says why. */
  SIGNATURE_INVALID: 'bad signature input',
  /** A SAT signer's certificate is refused (details.reason: unreadable, csd, rfc_mismatch, expired, not_yet_valid, untrusted, revoked). */
  SAT_CERTIFICATE_REFUSED: 'certificate refused',
  /** The signature value sent for a prepared SAT signature does not verify with the signer's certificate. */
  SAT_SIGNATURE_INVALID: 'signature does not verify',
  /** A CERT signer's certificate is refused (details.reason: unreadable, name_mismatch, key_usage, unsupported_key, expired, not_yet_valid, untrusted, revoked). */
  CERTIFICATE_REFUSED: 'certificate refused',
  /** The signature value sent for a prepared CERT signature does not verify with the signer's certificate. */
  CERTIFICATE_SIGNATURE_INVALID: 'signature does not verify',
  /** A CERT signer posted a drawn or typed signature: they sign with their own certificate (prepare, finish). */
  CERTIFICATE_REQUIRED: 'sign with your certificate',
  /** A CSC provider refused or failed a step, or answered what does not check (details.provider, details.step). */
  CSC_PROVIDER_ERROR: 'remote signing provider error',
  /** The return from a CSC provider names no authorization in progress (unknown, used or expired state). */
  CSC_AUTHORIZATION_INVALID: 'authorization not in progress',
  /** No prepared SAT signature with that id for this signer. */
  PREPARATION_NOT_FOUND: 'unknown preparation',
  /** The prepared SAT signature waited longer than allowed: prepare again. */
  PREPARATION_EXPIRED: 'preparation expired',
  /** The prepared SAT signature was finished already, or the document changed since: prepare again. */
  PREPARATION_USED: 'preparation used',
  /** The PDF cannot take a signature without rewriting it (damaged structure, certified against changes). */
  PDF_NOT_SIGNABLE: 'PDF not signable',
  /** The signature could not be made (time-stamp authority down or its answer refused). */
  SIGNING_FAILED: 'signing failed',
  /** The NOM-151 conservation provider (or the built-in authority) did not answer, or answered with an HTTP error; nothing was stored. */
  STAMP_PROVIDER_UNAVAILABLE: 'stamp provider down',
  /** The provider answered, but its reply was refused (not granted, wrong imprint or nonce, bad signature, untrusted authority, other policy); nothing was stored. */
  STAMP_REFUSED: 'stamp refused',
  /** The service clock is earlier than the start of validity of a certificate of its own CA: no signature can be made until the clock is right. */
  CLOCK_BEHIND: 'clock behind',
  /** The workflow cannot change in the document's state (finished, deleted, or a set's document). */
  WORKFLOW_NOT_CHANGEABLE: 'workflow fixed',
  /** `ordered` cannot change once a signer has signed. */
  WORKFLOW_ORDER_LOCKED: 'order fixed',
  /** No signer with that signer_id (or sticker_id) on the document or set. */
  SIGNER_NOT_FOUND: 'unknown signer',
  /** The signer cannot be edited: they signed or rejected, the document is finished, or its set is closed. */
  SIGNER_NOT_EDITABLE: 'signer fixed',
  /** The edit would give the document two signers with the same authority and data. */
  SIGNER_CONFLICT: 'duplicate signer',
  /** A provider's status callback without a valid signature (X-Twilio-Signature, X-Hub-Signature-256), or a wrong webhook verify token; nothing was changed. */
  CALLBACK_SIGNATURE_INVALID: 'bad callback signature',
  /** No route for that method and path. */
  ROUTE_NOT_FOUND: 'unknown route',
  /** The account sent more requests a minute than allowed; see Retry-After. */
  RATE_LIMITED: 'rate limited',
  /** An endorsement was asked for a document that is not completed (details.status). */
  DOCUMENT_NOT_COMPLETED: 'not completed',
  /** The document already has an endorsement waiting for its endorser (details.endorsement_id). */
  ENDORSEMENT_PENDING: 'endorsement pending',
  /** After the first endorsement, the endorser is not the current holder (the last endorsee). */
  NOT_HOLDER: 'not the holder',
  /** No endorsement with that id on that document. */
  ENDORSEMENT_NOT_FOUND: 'unknown endorsement',
  /** The endorsement is signed, declined or withdrawn already: it can no longer be withdrawn (details.status). */
  ENDORSEMENT_NOT_PENDING: 'endorsement not pending',
  /** An endorser's link whose endorsement the account withdrew: it no longer shows, signs or declines anything (details.withdrawn_at). */
  ENDORSEMENT_WITHDRAWN: 'endorsement withdrawn',
  /** The panel's sign-in link is unknown, used already, or expired: ask for a new one. */
  SIGN_IN_LINK_INVALID: 'sign-in link invalid',
  /** A panel request without a live session (none, ended, idle too long, past its absolute end). */
  PANEL_SESSION_REQUIRED: 'panel session required',
  /** A panel change without the session's CSRF token in the X-CSRF-Token header, or with a wrong one; nothing was changed. */
  CSRF_TOKEN_INVALID: 'CSRF token invalid',
  /** No API key with that id in this account. */
  API_KEY_NOT_FOUND: 'unknown API key',
  /** The account has no webhook URL yet: set one first. */
  WEBHOOK_NOT_SET: 'no webhook URL',
  /** A dependency (database, renderer) is unavailable. */
  SERVICE_UNAVAILABLE: 'dependency down',
  /** A service key in the PKCS#11 token (issuing CA, TSA, OCSP responder) cannot be reached: nothing was signed, and no other key stands in. */
  SERVICE_KEY_UNAVAILABLE: 'service key unavailable',
  /** A bug or an unexpected failure; the body carries the request id only. */
  INTERNAL: 'internal error',
} as const;

export type ErrorCode = keyof typeof ERROR_CODES;
