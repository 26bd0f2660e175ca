// GET /verify/{ticket}: what anyone holding the ticket (the QR code on the printed document) may
// learn about the document: its name, state and fingerprint, and each signature as the signature
// report checks it (checkDocumentSignatures, the computation behind GET /api/report). Never the
// file, a signing link, an address the signer used, or a full email address or phone number:
// identifiers are masked (j***@example.com), and the names of signers who have not signed yet too,
// because a signer's name is only public once the signer has put it in the file.
import { AppError } from '../errors.js';
import type { Deps } from '../deps.js';
import { findDocumentByTicket } from '../../store/verify-repo.js';
import type { PublicSignature, PublicVerification } from '../../schemas/verification.js';
import { checkDocumentSignatures } from './signature-report.js';

export type { PublicPendingSigner, PublicSignature, PublicVerification } from '../../schemas/verification.js';

const MAX_TICKET_LENGTH = 100;
const PHONE_AUTHORITIES = new Set(['SMS', 'WHATSAPP']);

/** j***@example.com: the first character of the local part, the domain whole. */
export function maskEmail(email: string): string {
  const at = email.lastIndexOf('@');
  if (at <= 0) {
    return maskWord(email);
  }
  return `${[...email.slice(0, at)][0]}***${email.slice(at)}`;
}

/** Ana García → A*** G***. */
export function maskName(name: string): string {
  return name.trim().split(/\s+/).filter(Boolean).map(maskWord).join(' ');
}

function maskWord(word: string): string {
  const first = [...word][0];
  return first ? `${first}***` : '';
}

/**
 * The name a signature's certificate carries, as the public page may show it. A signer without a
 * name gets a certificate named after their email or phone number (sign-document.ts): that is an
 * identifier, masked like every other identifier here, not a name.
 */
export function publicSignerName(commonName: string, authority: string): string {
  const cn = commonName.trim();
  if (cn.includes('@') || (PHONE_AUTHORITIES.has(authority) && /^\+?[\d\s().-]{6,}$/.test(cn))) {
    return maskIdentifier(authority, cn);
  }
  return cn;
}

/** An email as maskEmail; a phone number as its last two digits; anything else as its first letter. */
export function maskIdentifier(authority: string, data: string): string {
  if (data.includes('@')) {
    return maskEmail(data);
  }
  if (PHONE_AUTHORITIES.has(authority)) {
    const digits = data.replace(/\D/g, '');
    return `***${digits.slice(-2)}`;
  }
  return maskWord(data);
}

export async function verifyDocument(deps: Deps, q: { ticket: string }): Promise<PublicVerification> {
  const doc = q.ticket.length <= MAX_TICKET_LENGTH ? await findDocumentByTicket(deps.db, q.ticket) : undefined;
  if (!doc) {
    throw new AppError('DOCUMENT_NOT_FOUND', 'no document with this verification code');
  }
  if (doc.status === 'deleted') {
    throw new AppError('DOCUMENT_DELETED', 'this document is no longer available');
  }
  const { report, facts, signers } = await checkDocumentSignatures(deps, doc);
  const signatures = report.firmas.map((f, i): PublicSignature => {
    const ts = facts[i];
    return {
      signer_name: publicSignerName(f.certificados[0]?.commonName ?? '', f.downstreamData.authority),
      email: f.email ? maskEmail(f.email) : '',
      authority: f.downstreamData.authority,
      signed_at: f.signDate,
      valid: f.validSignature,
      covers_document: f.coversDocument,
      revision: f.revision,
      total_revisions: f.totalRevisions,
      timestamp: ts.timestampTime ? { time: ts.timestampTime, authority: f.timestampAuthority } : null,
      certificate_trusted: ts.trusted,
      certificate_status: f.ocsp.certStatus,
      modified_after_signing: f.modifiedAfterSigning,
      // A signature is only shown as valid when nothing it forbids was done to the document after it.
      verified: f.ocsp.signatureValid && !f.modifiedAfterSigning,
    };
  });
  const pending = signers
    .filter((s) => s.status !== 'signed' && s.status !== 'rejected')
    .map((s) => ({
      name: s.name ? maskName(s.name) : '',
      identifier: maskIdentifier(s.authority, s.email ?? s.data),
      authority: s.authority,
    }));
  return {
    ticket: doc.ticket,
    name: doc.name,
    status: doc.status,
    created_at: doc.created_at.toISOString(),
    page_count: doc.page_count,
    sha256: doc.original_sha256,
    signatures,
    pending_signers: pending,
  };
}
