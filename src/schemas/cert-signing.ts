// The two requests of a signature with the signer's own certificate (authority CERT,
// routes/cert-signing.ts): the certificate goes up, the signed attributes come back, the browser
// signs them with the key it keeps (from a PKCS#12 or PEM file), and only the signature value goes up.
import { type Static, Type } from '@sinclair/typebox';
import { DateTime, StringEnum, examples } from './common.js';
import { FieldValues } from './signer-fields.js';
import { SatFinishBody, SetFinishTicket, SetPrepareTicket } from './sat-signing.js';

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
  signature_algorithm: StringEnum(['RSASSA-PKCS1-v1_5', 'RSA-PSS', 'ECDSA'], {
    description:
      "WebCrypto name of the signature to make, from the certificate's key: RSASSA-PKCS1-v1_5 for an RSA key (PSS is accepted too), RSA-PSS for an RSASSA-PSS key, ECDSA for an EC key",
  }),
  hash: StringEnum(['SHA-256', 'SHA-384', 'SHA-512'], {
    description: 'the hash to sign with: SHA-256 for RSA and P-256, SHA-384 for P-384, SHA-512 for P-521',
  }),
  named_curve: Type.Optional(StringEnum(['P-256', 'P-384', 'P-521'], { description: "ECDSA: the key's curve" })),
  salt_length: Type.Optional(Type.Integer({ description: 'RSA-PSS: the salt length in bytes (MGF1 with the same hash)' })),
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

/** The SAT's finish body, the value under the certificate key's scheme: the preparation and the signature value. */
export const CertFinishBody = Type.Object({
  preparation_id: SatFinishBody.properties.preparation_id,
  signature: Type.String({
    minLength: 1,
    description:
      'Base64 of the signature over signed_attributes as prepare asked for it (an ECDSA value as WebCrypto gives it, r || s, or DER)',
  }),
});
export type CertFinishBody = Static<typeof CertFinishBody>;
examples(CertFinishBody, { preparation_id: '6f1c2a9e-3b7d-4d38-9a51-0c2f5e8b7a14', signature: 'Jd0pW2b5...' });

/** The same two requests on a set link: one document of the set at a time, named by its ticket. */
export const SetCertPrepareBody = Type.Composite([CertPrepareBody, SetPrepareTicket]);
export type SetCertPrepareBody = Static<typeof SetCertPrepareBody>;
examples(SetCertPrepareBody, {
  certificate: 'MIIDzTCCArWgAwIBAgIUF2...',
  consent: true,
  language: 'en',
  document_ticket: '0bd0b4ad-d0f7-48c5-b4a8-27ba5e56fda7',
});

export const SetCertFinishBody = Type.Composite([CertFinishBody, SetFinishTicket]);
export type SetCertFinishBody = Static<typeof SetCertFinishBody>;
examples(SetCertFinishBody, {
  preparation_id: '6f1c2a9e-3b7d-4d38-9a51-0c2f5e8b7a14',
  signature: 'Jd0pW2b5...',
  document_ticket: '0bd0b4ad-d0f7-48c5-b4a8-27ba5e56fda7',
});
