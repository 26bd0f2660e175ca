// The two requests of a signature with the signer's own SAT e.firma (routes/sat-signing.ts): the
// certificate goes up, the signed attributes come back, the browser signs them with the key it
// keeps, and only the signature value goes up.
import { type Static, Type } from '@sinclair/typebox';
import { DateTime, StringEnum, examples } from './common.js';
import { FieldValues } from './signer-fields.js';

export const SatPrepareBody = Type.Object({
  certificate: Type.String({ minLength: 1, description: 'the e.firma certificate (.cer), DER in Base64' }),
  consent: Type.Literal(true),
  language: Type.Optional(StringEnum(['es', 'en'], { description: "the page's language, for the signature's legend" })),
  field_values: Type.Optional(FieldValues),
});
export type SatPrepareBody = Static<typeof SatPrepareBody>;
examples(SatPrepareBody, {
  certificate: 'MIIGLzCCBBegAwIBAgIUMzAwMDEwMDAwMDA1MDAwMDM0MTYwDQYJKoZIhvcNAQEL...',
  consent: true,
  language: 'es',
});

export const SatPrepared = Type.Object({
  preparation_id: Type.String({ description: 'names this preparation in the finish request' }),
  signed_attributes: Type.String({
    description: 'Base64 of the DER the signer signs: the CMS signed attributes (RFC 5652 §5.4) of this signature',
  }),
  signature_algorithm: Type.Literal('RSASSA-PKCS1-v1_5', { description: 'WebCrypto name of the signature to make' }),
  hash: Type.Literal('SHA-256'),
  expires_at: DateTime('finish before this time, or prepare again'),
  certificate: Type.Object({
    name: Type.String(),
    rfc: Type.String(),
    curp: Type.String(),
    serial: Type.String({ description: 'lowercase hex' }),
    certificate_number: Type.String({ description: "the SAT's certificate number (the serial as digits)" }),
    valid_from: DateTime('start of the validity period (notBefore)'),
    valid_to: DateTime('end of the validity period (notAfter)'),
    status: StringEnum(['good', 'unknown'], { description: "the SAT's OCSP answer; unknown when it could not be asked" }),
  }),
});
export type SatPrepared = Static<typeof SatPrepared>;
examples(SatPrepared, {
  preparation_id: '6f1c2a9e-3b7d-4d38-9a51-0c2f5e8b7a14',
  signed_attributes: 'MYGYMBgGCSqGSIb3DQEJAzELBgkqhkiG9w0BBwEwLwYJKoZIhvcNAQkEMSIEIG...',
  signature_algorithm: 'RSASSA-PKCS1-v1_5',
  hash: 'SHA-256',
  expires_at: '2026-11-23T10:05:00.000Z',
  certificate: {
    name: 'MARIA GOMEZ LOPEZ',
    rfc: 'GOLM800101AB1',
    curp: 'GOLM800101MDFMPR09',
    serial: '3330303031303030303030353030303033343136',
    certificate_number: '30001000000500003416',
    valid_from: '2025-03-01T00:00:00.000Z',
    valid_to: '2029-03-01T00:00:00.000Z',
    status: 'good',
  },
});

export const SatFinishBody = Type.Object({
  // The pattern too: the uuid format also takes a `urn:uuid:` prefix, which the database does not.
  preparation_id: Type.String({ format: 'uuid', pattern: '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$' }),
  signature: Type.String({ minLength: 1, description: 'Base64 of the RSASSA-PKCS1-v1_5 SHA-256 signature over signed_attributes' }),
});
export type SatFinishBody = Static<typeof SatFinishBody>;
examples(SatFinishBody, { preparation_id: '6f1c2a9e-3b7d-4d38-9a51-0c2f5e8b7a14', signature: 'Jd0pW2b5...' });

/** The same two requests on a set link: one document of the set at a time, named by its ticket. */
/** What a set link's prepare and finish add to a document's: the document of the set, by its ticket. */
export const SetPrepareTicket = Type.Object({
  document_ticket: Type.String({ description: 'the document of the set this signature is for' }),
});
export const SetFinishTicket = Type.Object({ document_ticket: Type.String({ description: 'the document the preparation was made for' }) });

export const SetSatPrepareBody = Type.Composite([SatPrepareBody, SetPrepareTicket]);
export type SetSatPrepareBody = Static<typeof SetSatPrepareBody>;
examples(SetSatPrepareBody, {
  certificate: 'MIIGLzCCBBegAwIBAgIUMzAwMDEwMDAwMDA1MDAwMDM0MTYwDQYJKoZIhvcNAQEL...',
  consent: true,
  language: 'es',
  document_ticket: '0bd0b4ad-d0f7-48c5-b4a8-27ba5e56fda7',
});

export const SetSatFinishBody = Type.Composite([SatFinishBody, SetFinishTicket]);
export type SetSatFinishBody = Static<typeof SetSatFinishBody>;
examples(SetSatFinishBody, {
  preparation_id: '6f1c2a9e-3b7d-4d38-9a51-0c2f5e8b7a14',
  signature: 'Jd0pW2b5...',
  document_ticket: '0bd0b4ad-d0f7-48c5-b4a8-27ba5e56fda7',
});
