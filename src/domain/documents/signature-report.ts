// GET /api/report/{ticket}: every signature of the document's current original, checked from the
// file itself (pdf/read-signatures.ts, trusting the service's root), with what only the service
// knows added: the revocation status from its register of issued certificates, the signer behind
// each field and the boxes they own. It serves external verification, not progress tracking.
//
// Decisions (for docs/api.md, which decisions.md says should record them):
// - `ipAddress` is the address the signer signed from, as the service saw it ('' for a signature
//   this service did not make). Behind a proxy it is the proxy's unless trustProxy is configured.
// - `box` is the sticker_index of the signer's box that holds the signature field's widget (the
//   first box when none matches); -1 for a signature that no signer of this document made (a PDF
//   uploaded already signed). Signers are matched by the field name Sello-<signer_id>.
// - `signatureType`: PAdES-B-T when a signature time-stamp is embedded, PAdES-B-B otherwise, for
//   ETSI.CAdES.detached; for any other /SubFilter, the SubFilter itself (adbe.pkcs7.detached, ...).
// - `ocsp` comes from the register, as the service's OCSP responder would answer: `certStatus`
//   good|revoked|unknown (unknown for a certificate the issuing CA did not issue), `signer` the
//   responder's DN ('' when it is not authoritative), and `signatureValid`: the signature verifies,
//   its chain reaches the root, and the certificate is good, or was revoked only after the time
//   the time-stamp proves (ETSI EN 319 102-1: a revocation after the proof of existence does not
//   invalidate the signature).
// - `InkSignatures`: one entry per box drawn by hand (signature type "drawn"), with its position;
//   typed signatures and signatures made elsewhere have none.
import type { FilledSignerField } from '../../schemas/signer-fields.js';
import { fieldsOfDocument } from '../../store/signer-fields-repo.js';
import { fieldsBySigner } from '../signing/signer-fields.js';
import { AUTOMATIC_PROVIDER } from '../identity/automatic-provider.js';
import { endorsementsOf } from '../../store/endorsements-repo.js';
import { endorsementChain } from '../endorsements/list-endorsements.js';
import { X509Certificate } from 'node:crypto';
import { AppError } from '../errors.js';
import type { Deps } from '../deps.js';
import type { PdfSignatures } from '../../pdf/read-signatures.js';
import type { VerifiedPdf, VerifiedSignature } from '../../pdf/verify/verify-pdf.js';
import { pdfJailError } from './read-pdf.js';
import { findDocument } from '../../store/documents-repo.js';
import { certificateStatus } from '../../store/pki-repo.js';
import { splitTrust } from '../../pki/sat-certificate.js';
import { reportSigners, type ReportSigner } from '../../store/report-repo.js';
import type { Firma, InkSignature, SignatureReport } from '../../schemas/report.js';

type Box = { left: number; top: number; width: number; height: number };

export type { Firma, InkSignature, SignatureReport } from '../../schemas/report.js';

const DATA_TYPES: Record<string, string> = {
  EMAIL_LINK: 'email',
  EMAIL: 'email',
  SMS: 'phone',
  WHATSAPP: 'phone',
  SAT: 'rfc',
  CERT: 'email',
  CSC: 'email',
};

/** A sticker (origin at the CropBox's lower-left) as a top-left box, like the firmas' boxes. */
function topLeft(b: ReportSigner['boxes'][number], pageHeight: number): Box {
  const r = (v: number) => Math.round(v * 1000) / 1000;
  return { left: r(b.lx), top: r(pageHeight - b.ty), width: r(b.tx - b.lx), height: r(b.ty - b.ly) };
}

function boxOf(sig: VerifiedSignature, signer: ReportSigner | undefined, pages: PdfSignatures['pages']): number {
  if (!signer || signer.boxes.length === 0) {
    return -1;
  }
  const near = (a: Box, b: Box) => (['left', 'top', 'width', 'height'] as const).every((k) => Math.abs(a[k] - b[k]) < 0.5);
  const match = signer.boxes.find((b) => b.page === sig.page && pages[b.page] && near(topLeft(b, pages[b.page].height), sig.box));
  return (match ?? signer.boxes[0]).sticker_index;
}

/** Whether the issuing CA signed this certificate (name chaining and the signature itself). */
function issuedByUs(der: Buffer, issuing: X509Certificate): boolean {
  try {
    const cert = new X509Certificate(der);
    return cert.checkIssued(issuing) && cert.verify(issuing.publicKey);
  } catch {
    return false;
  }
}

async function ocspOf(deps: Deps, sig: VerifiedSignature, ours: boolean, responderDn: string): Promise<Firma['ocsp']> {
  const serial = sig.signer?.serial;
  const status = ours && serial ? await certificateStatus(deps.db, serial) : undefined;
  const certStatus = !status ? 'unknown' : status.revokedAt ? 'revoked' : 'good';
  const provenAt = sig.timestamp?.verified ? sig.timestamp.genTime : undefined;
  const revokedLater = certStatus === 'revoked' && !!provenAt && !!status?.revokedAt && provenAt < status.revokedAt;
  return {
    signatureValid: sig.validSignature && sig.trusted && (certStatus === 'good' || revokedLater),
    certStatus,
    signer: ours ? responderDn : '',
  };
}

function satOcsp(sig: VerifiedSignature, status: string | null): Firma['ocsp'] {
  const certStatus = status === 'good' ? 'good' : 'unknown';
  return { signatureValid: sig.validSignature && sig.trusted && certStatus === 'good', certStatus, signer: '' };
}

export async function signatureReport(deps: Deps, q: { accountId: string; ticket: string }): Promise<SignatureReport> {
  const doc = await findDocument(deps.db, q.accountId, q.ticket);
  if (!doc) {
    throw new AppError('DOCUMENT_NOT_FOUND', `no document ${q.ticket}`);
  }
  if (doc.status === 'deleted') {
    throw new AppError('DOCUMENT_DELETED', `document ${q.ticket} is deleted; restore it to see its report`);
  }
  const [checked, endorsements] = await Promise.all([checkDocumentSignatures(deps, doc), endorsementsOf(deps.db, doc.id)]);
  return { ...checked.report, endorsements: endorsementChain(endorsements).endorsements };
}

/** What the public verification page shows of a signature beyond its firma. */
export interface SignatureFacts {
  /** The signer's certificate chains to a trusted root at the signing time (the time-stamp's, else /M). */
  trusted: boolean;
  /** The verified signature time-stamp's time (ISO 8601); '' when there is none or it does not verify. */
  timestampTime: string;
}

export interface DocumentSignatures {
  report: SignatureReport;
  /** One per firma, in the same order. */
  facts: SignatureFacts[];
  /** The document's signers in sticker order, as the report matched them. */
  signers: ReportSigner[];
}

/**
 * The check behind GET /api/report/{ticket} and the public verification page (/verify), for a
 * document the caller has found and may show: every signature of its current original.
 */
export async function checkDocumentSignatures(deps: Deps, doc: { id: string; original_sha256: string }): Promise<DocumentSignatures> {
  // Only the jail reads the file: in shared memory, its worker reaches it without a copy.
  const [bytes, signers, fields] = await Promise.all([
    deps.blobs.get(doc.original_sha256, { shared: true }),
    reportSigners(deps.db, doc.id),
    fieldsOfDocument(deps.db, doc.id),
  ]);
  return checkFileSignatures(deps, bytes, signers, fieldsBySigner(fields));
}

/**
 * The report of any PDF's signatures (pdf/verify/verify-pdf.ts, in the PDF jail), with what the
 * service knows of `signers` (none for a file uploaded to be verified) and of the certificates it
 * issued. Signers chain to the service root; time stamps may also come from the operator's TSA.
 */
export async function checkFileSignatures(
  deps: Deps,
  bytes: Uint8Array,
  signers: ReportSigner[],
  /** The fields each signer filled, by signer_id (decisions.md, "Fields signers fill"). */
  fields: Map<string, FilledSignerField[]> = new Map(),
): Promise<DocumentSignatures> {
  const read = await readSignatures(deps, bytes);
  const service: ServiceCertificates = {
    issuing: new X509Certificate(deps.pki.pki.issuing.certificateDer),
    responderDn: new X509Certificate(deps.pki.pki.ocsp.certificateDer).subject.split('\n').join(', '),
  };
  const firmas: Firma[] = [];
  const ink: InkSignature[] = [];
  const facts: SignatureFacts[] = [];
  for (const sig of read.signatures) {
    // Only this document's signers: a field named after another document's signer reveals nothing.
    const signer = signers.find((s) => sig.fieldName === `Sello-${s.signer_id}`);
    firmas.push({ ...(await firmaOf(deps, read, service, sig, signer)), signer_fields: (signer && fields.get(signer.signer_id)) ?? [] });
    facts.push({ trusted: sig.trusted, timestampTime: sig.timestamp?.verified ? (sig.timestamp.genTime?.toISOString() ?? '') : '' });
    if (signer?.signature_type === 'drawn') {
      for (const b of signer.boxes.filter((x) => read.pages[x.page])) {
        ink.push({ campoFirma: sig.fieldName, box: b.sticker_index, page: b.page, ...topLeft(b, read.pages[b.page].height) });
      }
    }
  }
  const attacks = read.attacks.map((a) => ({ name: a.name, campoFirma: a.field, detail: a.detail }));
  return { report: { InkSignatures: ink, firmas, documentIntegrity: read.documentIntegrity, attacks }, facts, signers };
}

/** The file's signatures as the verifier reads them, in the PDF jail. */
async function readSignatures(deps: Deps, bytes: Uint8Array): Promise<VerifiedPdf> {
  try {
    const root = deps.pki.pki.root.certificateDer;
    // Signers chain to the service root or, for signatures with the signer's own certificate, to the
    // SAT's roots or the CERT trust list's; time stamps may come from the operator's TSA (SELLO_TSA_URL).
    return await deps.pdfJail.verifyPdf(bytes, {
      trustedRootsDer: [
        root,
        ...splitTrust(deps.config.sat.trustedDer).anchors,
        ...splitTrust(deps.config.cert.trustedDer).anchors,
        ...splitTrust(deps.config.csc.trustedDer).anchors,
      ],
      timestampRootsDer: [root, ...(deps.externalTsa?.trustedRootsDer ?? [])],
    });
  } catch (err) {
    throw pdfJailError(err);
  }
}

/** The service's issuing CA (whose signers are ours) and its OCSP responder's name. */
interface ServiceCertificates {
  issuing: X509Certificate;
  responderDn: string;
}

/** One signature as the report shows it. */
async function firmaOf(
  deps: Deps,
  read: VerifiedPdf,
  service: ServiceCertificates,
  sig: VerifiedSignature,
  signer: ReportSigner | undefined,
): Promise<Omit<Firma, 'signer_fields'>> {
  const ours = !!sig.signer && issuedByUs(sig.signer.der, service.issuing);
  // The signer's own SAT e.firma or CERT certificate: its status is what the CA's responder (or CRL)
  // answered when it signed.
  const own =
    !ours &&
    (signer?.signature_type === 'efirma' || signer?.signature_type === 'certificate') &&
    signer.certificate_serial === sig.signer?.serial;
  // In an uploaded file, a signer not ours whose chain the verifier trusted chains to the SAT's roots
  // or the CERT trust list's (the only others it is given); its status is unknown to the service.
  const uploaded = !ours && !signer && !!sig.signer && sig.trusted;
  const embedded = sig.timestamp !== null;
  return {
    page: sig.page,
    ...sig.box,
    downstream: sig.downstream,
    campoFirma: sig.fieldName,
    signatureType: sig.subFilter === 'ETSI.CAdES.detached' ? (embedded ? 'PAdES-B-T' : 'PAdES-B-B') : sig.subFilter,
    validSignature: sig.validSignature,
    coversDocument: sig.coversDocument,
    totalRevisions: read.totalRevisions,
    revision: sig.revision,
    signDate: sig.signDate?.toISOString() ?? '',
    certType: ours ? 'SELLO' : own ? ownCertType(signer.authority) : uploaded ? uploadedCertType(deps, sig) : 'external',
    signCertificateSerial: sig.signer?.serial ?? '',
    box: boxOf(sig, signer, read.pages),
    email: sig.signer?.email || signer?.email || '',
    ipAddress: signer?.action_ip ?? '',
    timestampAuthority: sig.timestamp?.verified ? (sig.timestamp.tsaSubject ?? '') : '',
    downstreamData: downstreamDataOf(sig, signer),
    ocsp: own ? satOcsp(sig, signer.certificate_status) : await ocspOf(deps, sig, ours, service.responderDn),
    certificados: sig.certificates.map(({ der: _der, ...c }) => c),
    problem: sig.validSignature ? null : { rule: sig.failedRule ?? 'invalid', message: sig.problem ?? 'the signature does not verify' },
    warnings: sig.warnings.map((w) => ({ rule: w.rule, message: w.message })),
    modifiedAfterSigning: sig.modifiedAfterSigning,
    changes: sig.changes.map((c) => ({
      revision: c.revision,
      object: c.objectNumber,
      kind: c.kind,
      category: c.category,
      description: c.description,
      allowed: c.allowed,
    })),
    level: sig.level,
    timestampValid: sig.timestampValid,
    // Revocation data is never fetched on a client's behalf: it is in the file, or the service's own.
    validationData: sig.ltvEmbedded ? 'embedded' : ours ? 'service' : 'none',
  };
}

/** A signature made here with the signer's own certificate: named for the signer's authority. */
const ownCertType = (authority: string): 'SAT' | 'CERT' | 'CSC' => (authority === 'CERT' || authority === 'CSC' ? authority : 'SAT');

/** A trusted signature of an uploaded file: CERT or CSC when its chain holds a certificate of that trust list. */
function uploadedCertType(deps: Deps, sig: VerifiedSignature): 'CERT' | 'CSC' | 'SAT' {
  const holds = (list: readonly Buffer[]) => sig.certificates.some((c) => list.some((t) => t.equals(c.der)));
  return holds(deps.config.cert.trustedDer) ? 'CERT' : holds(deps.config.csc.trustedDer) ? 'CSC' : 'SAT';
}

/** Who the signer is to the service (authority, data, identity verification), or what the certificate says. */
function downstreamDataOf(sig: VerifiedSignature, signer: ReportSigner | undefined): Firma['downstreamData'] {
  if (!signer) {
    return { authority: '', dataType: sig.signer?.email ? 'email' : '', subject: sig.signer?.email ?? '' };
  }
  const review = signer.identity_review;
  return {
    authority: signer.authority,
    dataType: DATA_TYPES[signer.authority] ?? '',
    subject: signer.data,
    ...(signer.csc_provider ? { provider: signer.csc_provider } : {}),
    ...(review
      ? {
          identityVerification: {
            method:
              review.provider === 'manual'
                ? ('manual_review' as const)
                : review.provider === AUTOMATIC_PROVIDER
                  ? ('automatic_checks' as const)
                  : ('provider' as const),
            provider: review.provider,
            reviewId: review.review_id,
            verifiedAt: new Date(review.verified_at).toISOString(),
          },
        }
      : {}),
  };
}
