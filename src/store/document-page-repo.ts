// SQL for the public document page (document_url): a document found by its ticket alone, whatever
// the account (the ticket is random and unguessable; the client handed it out), its boxes with their
// signers, and the personal-link emails already sent to a signer.
import { type Selectable, sql, type Transaction } from 'kysely';
import type { Db } from './db.js';
import type { Database, DocumentsTable, SignersTable, StickersTable } from './schema.js';

type Q = Db | Transaction<Database>;

export type PublicDocument = Pick<
  Selectable<DocumentsTable>,
  'id' | 'ticket' | 'account_id' | 'name' | 'status' | 'original_sha256' | 'workflow'
> & {
  account_name: string;
};

/** A box and its signer (email: the address the sender gave for the signer; a SAT signer's link goes there). */
export type PublicBox = Pick<Selectable<StickersTable>, 'sticker_id' | 'page' | 'lx' | 'ly' | 'tx' | 'ty'> &
  Pick<Selectable<SignersTable>, 'signer_id' | 'authority' | 'data' | 'name' | 'email' | 'status' | 'token_sealed'> & {
    signer_row_id: string;
  };

/** The document of a ticket, whatever the account; lock=true locks its row as appendHistory does (no key update). */
export async function findPublicDocument(q: Q, ticket: string, lock = false): Promise<PublicDocument | undefined> {
  return q
    .selectFrom('documents as d')
    .innerJoin('accounts as a', 'a.id', 'd.account_id')
    .select(['d.id', 'd.ticket', 'd.account_id', 'a.name as account_name', 'd.name', 'd.status', 'd.original_sha256', 'd.workflow'])
    .where('d.ticket', '=', ticket)
    .$if(lock, (qb) => qb.forNoKeyUpdate('d'))
    .executeTakeFirst();
}

function boxes(q: Q, documentId: string) {
  return q
    .selectFrom('stickers as k')
    .innerJoin('signers as s', 's.id', 'k.signer_row_id')
    .select(['k.sticker_id', 'k.page', 'k.lx', 'k.ly', 'k.tx', 'k.ty', 's.id as signer_row_id', 's.signer_id', 's.authority', 's.data'])
    .select(['s.name', 's.email', 's.status', 's.token_sealed'])
    .where('k.document_id', '=', documentId)
    .where('s.role', '=', 'signer');
}

/** Every box of the document with its signer, in sticker order. */
export async function boxesOfDocument(q: Q, documentId: string): Promise<PublicBox[]> {
  return boxes(q, documentId).orderBy('k.sticker_index').execute();
}

/** One box of the document, by sticker_id, with its signer. */
export async function findBox(q: Q, documentId: string, stickerId: string): Promise<PublicBox | undefined> {
  return boxes(q, documentId).where('k.sticker_id', '=', stickerId).executeTakeFirst();
}

/** When link requests for one signer of the document were made since `since`, oldest first. */
export async function recentLinkRequests(q: Q, r: { documentId: string; signerId: string; since: Date }): Promise<Date[]> {
  const rows = await q
    .selectFrom('document_history')
    .select('at')
    .where('document_id', '=', r.documentId)
    .where('action', '=', 'link_requested')
    .where(sql<string>`details->>'signer_id'`, '=', r.signerId)
    .where('at', '>', r.since)
    .orderBy('at')
    .execute();
  return rows.map((x) => new Date(x.at));
}
