// SQL for the title of the signer page as the service sends it (domain/signing/page-title.ts): the
// name of what a link opens (a document, or a set) and the brand of the account behind it.
import type { Db } from './db.js';

/** What the title is made of; undefined for a link nobody has. */
export interface PageTitleRow {
  name: string;
  account_name: string;
  brand_name: string | null;
  hide_sello: boolean;
}

const ACCOUNT = ['a.name as account_name', 'a.brand_name', 'a.hide_sello'] as const;

export function documentTitleByToken(db: Db, tokenHash: Buffer): Promise<PageTitleRow | undefined> {
  return db
    .selectFrom('signers as s')
    .innerJoin('documents as d', 'd.id', 's.document_id')
    .innerJoin('accounts as a', 'a.id', 'd.account_id')
    .select(['d.name', ...ACCOUNT])
    .where('s.token_hash', '=', tokenHash)
    .executeTakeFirst();
}

export function setTitleByToken(db: Db, tokenHash: Buffer): Promise<PageTitleRow | undefined> {
  return db
    .selectFrom('set_signers as ss')
    .innerJoin('document_sets as ds', 'ds.id', 'ss.set_id')
    .innerJoin('accounts as a', 'a.id', 'ds.account_id')
    .select(['ds.name', ...ACCOUNT])
    .where('ss.token_hash', '=', tokenHash)
    .executeTakeFirst();
}

export function documentTitleByTicket(db: Db, ticket: string): Promise<PageTitleRow | undefined> {
  return db
    .selectFrom('documents as d')
    .innerJoin('accounts as a', 'a.id', 'd.account_id')
    .select(['d.name', ...ACCOUNT])
    .where('d.ticket', '=', ticket)
    .executeTakeFirst();
}
