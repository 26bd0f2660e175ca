// The service's own endpoints outside the API: health, the PKI's public endpoints (certificates,
// CRLs, OCSP, time stamps) and the public verification page (routes/health.ts, pki.ts, verify.ts).
import { Type } from '@sinclair/typebox';
import { BinaryBody } from './common.js';
import { examples } from './common.js';
import { PublicVerification } from './verification.js';

export const Health = Type.Object({ status: Type.Literal('ok') });
examples(Health, { status: 'ok' });

/** A page for people (text/html). */
export const HtmlPage = { description: 'an HTML page', content: { 'text/html': { schema: Type.String() } } };

/** A response of raw bytes of the given media type. */
export const BinaryFile = (mediaType: string, description: string) => ({
  description,
  content: { [mediaType]: { schema: Type.String({ format: 'binary' }) } },
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
