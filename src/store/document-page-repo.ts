// SQL for the public document page (document_url): a document found by its ticket alone, whatever
// the account (the ticket is random and unguessable; the client handed it out), its boxes with their
// signers, and the personal-link emails already sent to a signer.
import { sql, type Transaction } from 'kysely';
import type { Db } from './db.js';
import type { Database, DocumentStatus } from './schema.js';

type Q = Db | Transaction<Database>;

export interface PublicDocument {
  id: string;
  ticket: string;
  account_id: string;
  account_name: string;
  name: string;
  status: DocumentStatus;
  original_sha256: string;
  workflow: unknown;
}

export interface PublicBox {
  sticker_id: string;
  page: number;
  lx: number;
  ly: number;
  tx: number;
  ty: number;
  signer_row_id: string;
  signer_id: string;
  authority: string;
  data: string;
  name: string | null;
  /** The email address the sender gave for the signer (a SAT signer's link goes there). */
  email: string | null;
  status: string;
  token_sealed: Buffer | null;
}

/** The document of a ticket, whatever the account; lock=true locks its row as appendHistory does (no key update). */
export async function findPublicDocument(q: Q, ticket: string, lock = false): Promise<PublicDocument | undefined> {
  const r = await sql<PublicDocument>`
    select d.id::text as id, d.ticket, d.account_id::text as account_id, a.name as account_name, d.name, d.status,
           d.original_sha256, d.workflow
    from documents d join accounts a on a.id = d.account_id
    where d.ticket = ${ticket} ${lock ? sql`for no key update of d` : sql``}`.execute(q);
  return r.rows[0];
}

const BOX = sql`k.sticker_id, k.page, k.lx, k.ly, k.tx, k.ty, s.id::text as signer_row_id, s.signer_id, s.authority, s.data,
  s.name, s.email, s.status, s.token_sealed`;

/** Every box of the document with its signer, in sticker order. */
export async function boxesOfDocument(q: Q, documentId: string): Promise<PublicBox[]> {
  const r = await sql<PublicBox>`select ${BOX} from stickers k join signers s on s.id = k.signer_row_id
                                 where k.document_id = ${documentId} and s.role = 'signer' order by k.sticker_index`.execute(q);
  return r.rows;
}

/** One box of the document, by sticker_id, with its signer. */
export async function findBox(q: Q, documentId: string, stickerId: string): Promise<PublicBox | undefined> {
  const r = await sql<PublicBox>`select ${BOX} from stickers k join signers s on s.id = k.signer_row_id
                                 where k.document_id = ${documentId} and k.sticker_id = ${stickerId} and s.role = 'signer'`.execute(q);
  return r.rows[0];
}

/** When link requests for one signer of the document were made since `since`, oldest first. */
export async function recentLinkRequests(q: Q, r: { documentId: string; signerId: string; since: Date }): Promise<Date[]> {
  const rows = await sql<{ at: Date }>`
    select at from document_history
    where document_id = ${r.documentId} and action = 'link_requested' and details->>'signer_id' = ${r.signerId} and at > ${r.since}
    order by at`.execute(q);
  return rows.rows.map((x) => new Date(x.at));
}
