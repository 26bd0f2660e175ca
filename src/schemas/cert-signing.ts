// The two requests of a signature with the signer's own certificate (authority CERT,
// routes/cert-signing.ts): the certificate goes up, the signed attributes come back, the browser
// signs them with the key it keeps (from a PKCS#12 or PEM file), and only the signature value goes up.
import { type Static, Type } from '@sinclair/typebox';
import { DateTime, StringEnum, examples } from './common.js';
import { FieldValues } from './signer-fields.js';
import { SatFinishBody } from './sat-signing.js';

export const CertPrepareBody = Type.Object({
  certificate: Type.String({ minLength: 1, description: "the signer's certificate, DER in Base64" }),
  consent: Type.Literal(true),
  language: Type.Optional(StringEnum(['es', 'en'], { description: "the page's language, for the signature's legend" })),
  field_values: Type.Optional(FieldValues),
});
export type CertPrepareBody = Static<typeof CertPrepareBody>;
examples(CertPrepareBody, { certificate: 'MIIDzTCCArWgAwIBAgIUF2...', consent: true, language: 'en' });

export const CertPrepared = Type.Object({
  preparation_id: Type.String({ description: 'names this preparation in the finish request' }),
  signed_attributes: Type.String({
    description: 'Base64 of the DER the signer signs: the CMS signed attributes (RFC 5652 §5.4) of this signature',
  }),
  signature_algorithm: Type.Literal('RSASSA-PKCS1-v1_5', { description: 'WebCrypto name of the signature to make' }),
  hash: Type.Literal('SHA-256'),
  expires_at: DateTime('finish before this time, or prepare again'),
  certificate: Type.Object({
    name: Type.String({ description: "the subject's common name" }),
    emails: Type.Array(Type.String(), { description: 'subject emailAddress and subjectAltName rfc822Name, lower-cased' }),
    subject: Type.String(),
    issuer: Type.String(),
    serial: Type.String({ description: 'lowercase hex' }),
    valid_from: DateTime('start of the validity period (notBefore)'),
    valid_to: DateTime('end of the validity period (notAfter)'),
    status: StringEnum(['good', 'unknown'], { description: "the CA's OCSP or CRL answer; unknown when none could be had" }),
  }),
});
export type CertPrepared = Static<typeof CertPrepared>;
examples(CertPrepared, {
  preparation_id: '6f1c2a9e-3b7d-4d38-9a51-0c2f5e8b7a14',
  signed_attributes: 'MYGYMBgGCSqGSIb3DQEJAzELBgkqhkiG9w0BBwEwLwYJKoZIhvcNAQkEMSIEIG...',
  signature_algorithm: 'RSASSA-PKCS1-v1_5',
  hash: 'SHA-256',
  expires_at: '2026-11-23T10:05:00.000Z',
  certificate: {
    name: 'Ana García',
    emails: ['ana@example.com'],
    subject: 'CN=Ana García, emailAddress=ana@example.com',
    issuer: 'C=ES, O=Example Trust Services, CN=Example Qualified CA',
    serial: '1f3a9c',
    valid_from: '2025-03-01T00:00:00.000Z',
    valid_to: '2028-03-01T00:00:00.000Z',
    status: 'good',
  },
});

/** The same body as the SAT's finish: the preparation and the signature value. */
export const CertFinishBody = SatFinishBody;
export type CertFinishBody = Static<typeof CertFinishBody>;
