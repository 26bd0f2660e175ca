// The signature report (GET /api/report/{ticket}) and the document history
// (GET /api/v1/document/{documentId}/history/json): what external verification reads.
import { FilledSignerField } from './signer-fields.js';
import { EndorsementEntry } from './endorsements.js';
import { type Static, Type } from '@sinclair/typebox';
import { DateTime, Nullable, StringEnum, TicketParam, checkedByUseCase } from './common.js';
import { examples } from './common.js';

export const ReportParams = Type.Object({ ticket: TicketParam() });
export const HistoryParams = Type.Object({ documentId: TicketParam() });
export const HistoryPdfQuery = Type.Object({
  lang: Type.Optional(
    StringEnum(['es', 'en'], {
      description: "the PDF's language; default: the document's (its workflow's `language`, else SELLO_DEFAULT_LANGUAGE)",
    }),
  ),
});

/** A box in PDF points from the top-left corner of the page's CropBox (unrotated). */
export const ReportBox = Type.Object({
  page: Type.Number({ description: '0-based page of the signature field; -1 when it is on no page' }),
  left: Type.Number({ description: 'points from the left edge of the CropBox (unrotated user space)' }),
  top: Type.Number({ description: "points from the top edge of the CropBox down to the box's upper edge" }),
  width: Type.Number(),
  height: Type.Number(),
});
export type ReportBox = Static<typeof ReportBox>;

export const InkSignature = Type.Composite([ReportBox, Type.Object({ campoFirma: Type.String(), box: Type.Integer() })]);
export type InkSignature = Static<typeof InkSignature>;

export const SignatureChange = Type.Object({
  revision: Type.Integer({ description: '1-based revision that made the change' }),
  object: Type.Integer({ description: 'object number (0 for bytes outside any object)' }),
  kind: StringEnum(['added', 'changed', 'removed']),
  category: StringEnum(['signature', 'timestamp', 'dss', 'form-fill', 'annotation', 'metadata', 'structure', 'unreferenced', 'other']),
  description: Type.String({ description: 'what the object is and which keys changed' }),
  allowed: Type.Boolean({ description: 'whether this signature allows the change' }),
});
export type SignatureChange = Static<typeof SignatureChange>;

export const AttackFinding = Type.Object({
  name: StringEnum([
    'universal-signature-forgery',
    'signature-wrapping',
    'incremental-saving',
    'shadow-hide',
    'shadow-replace',
    'shadow-hide-and-replace',
    'evil-annotation',
    'sneaky-signature',
  ]),
  campoFirma: Type.String({ description: 'the signature field it was found on' }),
  detail: Type.String(),
});

export const Firma = Type.Composite([
  ReportBox,
  Type.Object({
    downstream: Type.Boolean({ description: 'a later revision was appended after this signature' }),
    campoFirma: Type.String({ description: 'signature field name (Sello-<signer_id> for signatures made here)' }),
    signatureType: Type.String({ description: 'PAdES-B-T or PAdES-B-B; the /SubFilter for other signature kinds' }),
    validSignature: Type.Boolean({ description: 'the CMS signature verifies over the bytes its /ByteRange covers' }),
    coversDocument: Type.Boolean({ description: 'the /ByteRange covers the whole file except this /Contents' }),
    totalRevisions: Type.Integer(),
    revision: Type.Integer({ description: '1-based revision this signature closes' }),
    signDate: Type.String({ description: "ISO 8601: the time-stamp's genTime, else the claimed /M" }),
    certType: StringEnum(['SELLO', 'SAT', 'CERT', 'CSC', 'external'], {
      description:
        "SELLO: a certificate of the service's CA; SAT: the signer's own SAT e.firma; CERT: the signer's own certificate from a CA of the operator's trust list; CSC: a credential at the signer's trust service provider (remote signing); external: any other",
    }),
    signCertificateSerial: Type.String({ description: 'lowercase hex' }),
    box: Type.Integer({ description: 'sticker_index of the box holding the signature field; -1 for a signature not made here' }),
    email: Type.String(),
    ipAddress: Type.String({ description: 'the address the signer signed from; empty for a signature not made here' }),
    timestampAuthority: Type.String({ description: "DN of the verified time-stamp's authority; empty without one" }),
    downstreamData: Type.Object({
      authority: Type.String(),
      dataType: Type.String({ description: 'email (also for CERT), phone or rfc' }),
      subject: Type.String(),
      provider: Type.Optional(Type.String({ description: 'CSC: the name of the trust service provider whose credential signed' })),
      identityVerification: Type.Optional(
        Type.Object(
          {
            method: StringEnum(['manual_review', 'automatic_checks', 'provider'], {
              description:
                "manual_review: a person of the account reviewed the signer's identity document and selfie; automatic_checks: the service's built-in checks passed and the account lets them decide; provider: the operator's verification provider",
            }),
            provider: Type.String({ description: "'manual', 'automatic_checks', or the provider's name" }),
            reviewId: Type.String(),
            verifiedAt: DateTime(),
          },
          { description: 'present when the signer was asked to verify their identity before signing, and was' },
        ),
      ),
    }),
    ocsp: Type.Object({
      signatureValid: Type.Boolean(),
      certStatus: StringEnum(['good', 'revoked', 'unknown']),
      signer: Type.String({ description: 'DN of the OCSP responder; empty when the service is not authoritative' }),
    }),
    certificados: Type.Array(
      Type.Object({
        commonName: Type.String(),
        email: Type.String(),
        serial: Type.String(),
        signatureAlgorithm: Type.String(),
        issuerCommonName: Type.String(),
      }),
    ),
    problem: Nullable(
      Type.Object({
        rule: Type.String({ description: 'the rule broken: byte-range-not-from-zero, contents-empty, message-digest-mismatch, …' }),
        message: Type.String(),
      }),
      { description: 'why validSignature is false; null when it is true' },
    ),
    warnings: Type.Array(
      Type.Object({
        rule: Type.String({ description: 'contents-trailing-data: bytes after the CMS in /Contents, outside what is signed' }),
        message: Type.String(),
      }),
      { description: 'what the signature has that refuses nothing but is worth knowing; empty for most' },
    ),
    modifiedAfterSigning: Type.Boolean({
      description: 'a later revision changed something this signature does not allow (page content, annotations, a signed object…)',
    }),
    changes: Type.Array(SignatureChange, { description: 'what every later revision changed, allowed or not (at most 200)' }),
    level: StringEnum(['B-B', 'B-T', 'B-LT', 'B-LTA'], { description: 'PAdES baseline level the signature reaches' }),
    timestampValid: Type.Boolean({ description: 'a signature time stamp is embedded and verifies' }),
    signer_fields: Type.Array(FilledSignerField, {
      description: "the fields this signature's signer filled (label, type, value, page); [] for a signature not made here",
    }),
    validationData: StringEnum(['embedded', 'service', 'none'], {
      description:
        "embedded: the DSS holds the chain's certificates and revocation data; service: the status comes from this service's register; none",
    }),
  }),
]);
export type Firma = Static<typeof Firma>;

export const SignatureReport = Type.Object(
  {
    InkSignatures: Type.Array(InkSignature, { description: 'every box where a signer drew a signature by hand (signature type "drawn")' }),
    firmas: Type.Array(Firma),
    documentIntegrity: StringEnum(['intact', 'modified', 'invalid'], {
      description:
        'invalid: a signature does not verify; modified: one is valid but the document was changed after it in a way it does not allow',
    }),
    attacks: Type.Array(AttackFinding, { description: 'known attack patterns recognized in the file' }),
    endorsements: Type.Optional(
      Type.Array(EndorsementEntry, {
        description: "the document's endorsements in order (GET /api/report/{ticket} only; each signed one is also a firma)",
      }),
    ),
  },
  { description: 'Every signature of the current original, checked from the file' },
);
export type SignatureReport = Static<typeof SignatureReport>;
examples(SignatureReport, {
  InkSignatures: [
    { campoFirma: 'Sello-75dd5827-0af9-48ce-bc38-bab518ec8e07', box: 0, page: 0, left: 50, top: 721.89, width: 200, height: 70 },
  ],
  firmas: [
    {
      page: 0,
      left: 50,
      top: 721.89,
      width: 200,
      height: 70,
      downstream: false,
      campoFirma: 'Sello-75dd5827-0af9-48ce-bc38-bab518ec8e07',
      signatureType: 'PAdES-B-T',
      validSignature: true,
      coversDocument: true,
      totalRevisions: 2,
      revision: 2,
      signDate: '2026-11-22T03:10:42.000Z',
      certType: 'SELLO',
      signCertificateSerial: '5f0c2d9e7a41b3c8d6e2f10a9b8c7d6e',
      box: 0,
      email: 'ana@example.com',
      ipAddress: '203.0.113.7',
      timestampAuthority: 'O=Sello, CN=Sello Time-Stamping Authority',
      downstreamData: { authority: 'EMAIL_LINK', dataType: 'email', subject: 'ana@example.com' },
      ocsp: { signatureValid: true, certStatus: 'good', signer: 'O=Sello, CN=Sello OCSP Responder' },
      certificados: [
        {
          commonName: 'Ana',
          email: 'ana@example.com',
          serial: '5f0c2d9e7a41b3c8d6e2f10a9b8c7d6e',
          signatureAlgorithm: 'sha256WithRSAEncryption',
          issuerCommonName: 'Sello Signing CA',
        },
      ],
      problem: null,
      warnings: [],
      modifiedAfterSigning: false,
      changes: [],
      signer_fields: [{ label: 'Initials', type: 'initials', value: 'AG', page: 0 }],
      level: 'B-T',
      timestampValid: true,
      validationData: 'service',
    },
  ],
  documentIntegrity: 'intact',
  attacks: [],
});

// Multipart: the handler reads the parts as a stream (http/multipart.ts, verify-file.ts); there is
// no parsed body for the validator to check before.
export const ReportUpload = Type.Object(
  { file: Type.String({ format: 'binary', description: 'the PDF to verify' }) },
  { ...checkedByUseCase, description: 'multipart/form-data; the signature is over the Content-SHA256 header' },
);

export const HistoryEntry = Type.Object({
  seq: Type.Integer({ minimum: 1, description: '1, 2, 3… in the order the changes committed' }),
  at: DateTime(),
  action: Type.String({ description: 'created, invited, reminded, viewed, signed, rejected, completed, deleted, restored, …' }),
  actor: Type.String({ description: "'account' (the API caller), 'signer:<signer_id>' or 'system'" }),
  ip: Nullable(Type.String(), { description: 'the address the request came from; null for the system' }),
  details: Type.Unsafe<Record<string, unknown>>(
    Type.Object({}, { additionalProperties: true, description: 'what changed; its keys depend on the action' }),
  ),
  prev_hash: Type.String({ description: 'hash of the previous entry; 64 zeros for the first' }),
  hash: Type.String({ description: 'SHA-256 hex of the canonical JSON of the entry (docs/api.md)' }),
});
export type HistoryEntry = Static<typeof HistoryEntry>;

export const DocumentHistory = Type.Object(
  {
    document_ticket: Type.String(),
    entries: Type.Array(HistoryEntry),
    chain: Type.Object({
      valid: Type.Boolean({ description: 'every hash, link and seq checks, and the last entry is the head the document records' }),
      entries: Type.Integer(),
      first_broken_seq: Nullable(Type.Integer(), { description: 'where the chain first breaks; null when valid' }),
    }),
  },
  { description: 'The history of a document, oldest first, with the check of its hash chain' },
);
export type DocumentHistory = Static<typeof DocumentHistory>;
examples(DocumentHistory, {
  document_ticket: '80c4eab2-51ac-4aa7-b3be-9a2a58282d14',
  entries: [
    {
      seq: 1,
      at: '2026-03-02T09:00:00.000Z',
      action: 'created',
      actor: 'account',
      ip: '203.0.113.7',
      details: { name: 'Contrato.pdf', signers: 2, origin: 'b64_doc' },
      prev_hash: '0000000000000000000000000000000000000000000000000000000000000000',
      hash: '7738cb53b05697cf57966f89394a232fe9b287dfc6188a03b8ca60e957d66be5',
    },
    {
      seq: 2,
      at: '2026-03-02T09:04:10.000Z',
      action: 'viewed',
      actor: 'signer:0b7f6c1e-3f0a-4c41-9a57-2f9d2b8f51aa',
      ip: '198.51.100.23',
      details: {},
      prev_hash: '7738cb53b05697cf57966f89394a232fe9b287dfc6188a03b8ca60e957d66be5',
      hash: '41ddd5980286d702d53391ece732c54c80f2d9dbbb7c8609fccbc06145eb3b33',
    },
  ],
  chain: { valid: true, entries: 2, first_broken_seq: null },
});
