// GET /sign/api/document/{ticket}: what the page behind `document_url` shows to whoever holds it:
// the document's name and state, its page sizes, every box with a masked label for its signer and
// that signer's state, and the language. Not the PDF: the ticket also travels in the verification
// QR code printed on the document, so it is no credential for the content; a signer sees the
// document through the personal link this page sends. No full name, email address or phone number
// ever leaves this file.
import type { Transaction } from 'kysely';
import type { Deps } from '../deps.js';
import { AppError } from '../errors.js';
import { storedPageSizes } from '../documents/page-sizes.js';
import { maskEmail, maskIdentifier, maskName } from '../documents/verify-document.js';
import type { Db } from '../../store/db.js';
import { boxesOfDocument, findPublicDocument, type PublicDocument } from '../../store/document-page-repo.js';
import type { Database } from '../../store/schema.js';
import { explicitLanguage } from './workflow-language.js';
import type { DocumentPage } from '../../schemas/signing.js';
import { linkBy } from './link-by.js';

/** Longer than any ticket the service issues (a UUID); longer input is not looked up. */
const MAX_TICKET_LENGTH = 100;

export type { DocumentPage };

/**
 * The document behind a ticket, or DOCUMENT_NOT_FOUND. A deleted document is not found either: its
 * sender withdrew it, and whoever holds the link learns nothing more than for a wrong one.
 * `lock` locks the document row (inside trx), as appendHistory does, so callers serialize on it.
 */
export async function requirePageDocument(q: Db | Transaction<Database>, ticket: string, lock = false): Promise<PublicDocument> {
  const doc = ticket.length > 0 && ticket.length <= MAX_TICKET_LENGTH ? await findPublicDocument(q, ticket, lock) : undefined;
  if (!doc || doc.status === 'deleted') {
    throw new AppError('DOCUMENT_NOT_FOUND', 'no document with this link');
  }
  return doc;
}

export async function getDocumentPage(deps: Pick<Deps, 'db' | 'blobs' | 'config' | 'pdfJail'>, ticket: string): Promise<DocumentPage> {
  const doc = await requirePageDocument(deps.db, ticket);
  const [boxes, pages] = await Promise.all([boxesOfDocument(deps.db, doc.id), storedPageSizes(deps, doc.original_sha256)]);
  return {
    document: { ticket: doc.ticket, name: doc.name, status: doc.status },
    pages,
    boxes: boxes.map((b) => ({
      sticker_id: b.sticker_id,
      page: b.page,
      rect: { lx: b.lx, ly: b.ly, tx: b.tx, ty: b.ty },
      signer: { label: signerLabel(b), authority: b.authority, status: b.status, link_by: linkBy(b) },
    })),
    language: explicitLanguage(doc.workflow),
  };
}

const PHONE_AUTHORITIES = new Set(['SMS', 'WHATSAPP']);

/**
 * The box's signer as the public may see them: the data masked (j***@example.com, +52********78),
 * after the name masked when the client gave one (A*** G*** · j***@example.com). The ticket is
 * printed in the verification QR code, so this page is as public as /verify, which masks the same.
 */
export function signerLabel(s: { name: string | null; authority: string; data: string }): string {
  const data = PHONE_AUTHORITIES.has(s.authority)
    ? maskPhone(s.data)
    : s.data.includes('@')
      ? maskEmail(s.data)
      : maskIdentifier(s.authority, s.data);
  const name = s.name?.trim();
  return name ? `${maskName(name)} · ${data}` : data;
}

/** +525512345678 → +52********78: the country code and the last two digits, enough to tell boxes apart. */
export function maskPhone(phone: string): string {
  const digits = phone.replace(/\D/g, '');
  if (digits.length < 6) {
    return '*'.repeat(Math.max(3, digits.length));
  }
  return `+${digits.slice(0, 2)}${'*'.repeat(digits.length - 4)}${digits.slice(-2)}`;
}
