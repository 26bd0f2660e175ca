// The service's own endpoints outside the API: health, the PKI's public endpoints (certificates,
// CRLs, OCSP, time stamps) and the public verification page (routes/health.ts, pki.ts, verify.ts).
import { type Static, Type } from '@sinclair/typebox';
import { BinaryBody, DateTime, Nullable, examples } from './common.js';
import { PublicVerification } from './verification.js';

export const Health = Type.Object({ status: Type.Literal('ok') });
examples(Health, { status: 'ok' });

/** A page for people (text/html). */
export const HtmlPage = { description: 'an HTML page', content: { 'text/html': { schema: Type.String() } } };

/** The rest of a path after a route's `*` (a page's asset, a path the panel routes itself). */
export const AssetParams = Type.Object({ '*': Type.String() });
/** The signer page's own addresses: the token or ticket is read by the page, not by the server. */
export const PageTokenParams = Type.Object({ token: Type.String() });
/** The signer page's query: the site that frames it names its own origin (embedding mode). */
export const SignerPageQuery = Type.Object({
  embed_origin: Type.Optional(Type.String({ maxLength: 300, description: 'the origin of the site that frames the page' })),
});
export const PageTicketParams = Type.Object({ ticket: Type.String() });

/** A response of raw bytes of the given media type. */
export const BinaryFile = (mediaType: string, description: string) => ({
  description,
  content: { [mediaType]: { schema: Type.Unsafe<Uint8Array>({ type: 'string', format: 'binary' }) } },
});
export const PemFile = (description: string) => ({ description, content: { 'application/x-pem-file': { schema: Type.String() } } });

export const OcspRequestBody = BinaryBody('a DER OCSPRequest (RFC 6960), Content-Type application/ocsp-request');
export const TimestampQueryBody = BinaryBody('a DER TimeStampReq (RFC 3161), Content-Type application/timestamp-query');
export const OcspGetParams = Type.Object({ '*': Type.String({ description: 'the Base64 of a DER OCSPRequest, URL-encoded' }) });

export const VerifyParams = Type.Object({
  ticket: Type.String({ maxLength: 200, description: 'the document_ticket; append .json for JSON' }),
});
export const VerifyPage = {
  description: 'the verification page (HTML), or its data as JSON for /verify/{ticket}.json (docs/api.md)',
  content: { 'text/html': { schema: Type.String() }, 'application/json': { schema: PublicVerification } },
};

/** GET /dev/outbox (development only, not in the OpenAPI document): the latest messages, newest first. */
export const DevOutbox = Type.Object({
  texts: Type.Array(
    Type.Object({
      message_id: Type.String(),
      channel: Type.String({ description: 'sms or whatsapp' }),
      kind: Type.String(),
      to: Type.String(),
      status: Type.String(),
      error_code: Nullable(Type.String()),
      created_at: DateTime(),
      text: Type.String(),
    }),
  ),
  messages: Type.Array(
    Type.Object({
      message_id: Type.String(),
      kind: Type.String(),
      to: Type.String(),
      subject: Type.String(),
      status: Type.String(),
      created_at: DateTime(),
      text: Type.String(),
      html: Type.String(),
    }),
  ),
});
export type DevOutbox = Static<typeof DevOutbox>;
