// The statements of a creation (domain/documents/create-document.ts): one read of what the account
// decides for it, and one statement that writes the document with everything that commits with it.
//
// Why one statement: a creation used to send twelve, each a round trip, a parse, a plan and an
// execution in PostgreSQL; at hundreds of documents a second they were most of a creation's cost
// (docs/performance.md, "Where a creation's time goes"). PostgreSQL runs a data-modifying WITH as
// one statement: every part commits or none does, and the parts see each other only through
// RETURNING, which is all they need here (the signers' ids for their stickers).
import { type Kysely, type Selectable, sql } from 'kysely';
import type { Db } from './db.js';
import type { PackageRow } from './packages-repo.js';
import { executePrepared } from './prepared.js';
import type { Database, DocumentStatus, DocumentsTable, PieceKind } from './schema.js';

/** What the account decides for a creation, read before its transaction. */
export interface CreationAccount {
  nom151Default: boolean;
  timeZone: string;
  /** The account's packages of the kind a creation consumes (empty: no limit of that kind). */
  packages: PackageRow[];
}

/** The account's NOM-151 default, time zone and packages of one kind, in one read. */
export async function readCreationAccount(db: Db, accountId: string, kind: PieceKind): Promise<CreationAccount> {
  const query = db
    .selectFrom('accounts as a')
    .select(['a.nom151_default', 'a.time_zone'])
    .select(
      sql<PackageJson[] | null>`(select json_agg(p order by p.id) from (
        select id, public_id, kind, pieces, used, valid_from, valid_to, ended_at, created_at
          from packages where account_id = a.id and kind = ${kind}) p)`.as('packages'),
    )
    .where('a.id', '=', accountId)
    .compile();
  const r = (await executePrepared(db, 'creation_account', query)).rows[0];
  return {
    nom151Default: r?.nom151_default ?? false,
    timeZone: r?.time_zone ?? 'UTC',
    packages: (r?.packages ?? []).map(packageFromJson),
  };
}

/** A packages row as json_agg gives it: ids as text (bigint), times as ISO strings. */
type PackageJson = Omit<PackageRow, 'id' | 'valid_from' | 'valid_to' | 'ended_at' | 'created_at'> & {
  id: string | number;
  valid_from: string;
  valid_to: string;
  ended_at: string | null;
  created_at: string;
};

function packageFromJson(p: PackageJson): PackageRow {
  return {
    ...p,
    id: String(p.id),
    valid_from: new Date(p.valid_from),
    valid_to: new Date(p.valid_to),
    ended_at: p.ended_at === null ? null : new Date(p.ended_at),
    created_at: new Date(p.created_at),
  };
}

export interface NewDocument {
  ticket: string;
  accountId: string;
  setId: string | null;
  name: string;
  status: DocumentStatus;
  origin: Selectable<DocumentsTable>['origin'];
  sha256: string;
  sizeBytes: number;
  pageCount: number;
  hasFlow: boolean;
  workflow: unknown;
  nom151: boolean;
  createdAt: Date;
  signers: {
    signerId: string;
    position: number;
    authority: string;
    data: string;
    name: string | null;
    email: string | null;
    tokenHash: Buffer;
    /** The token sealed under the master key, so invitations and reminders can send the same link. */
    tokenSealed: Buffer;
    /** The signer starts verification_pending. */
    requireIdentityVerification?: boolean;
  }[];
  stickers: {
    stickerId: string;
    signerPosition: number;
    index: number;
    page: number;
    rect: { lx: number; ly: number; tx: number; ty: number };
    extra: Record<string, unknown>;
  }[];
  /** The history's first entry: the chain's start (prev_hash) and its hash, computed by the caller. */
  firstEntry: { action: string; actor: string; ip: string | null; details: unknown; prevHash: string; hash: string };
  /** The piece the creation consumes: from this package, or none (an account without packages). */
  piece: { kind: PieceKind; channel: string; packageId: string | null };
}

/**
 * The document, its signers, stickers, first history entry (the document's head points at it) and
 * consumption, and the piece taken from its package, in one statement (a transaction of its own,
 * or part of the caller's when it locked a set or a package first). `pieceTaken` is false only when the package had no piece left although the caller
 * locked it (a bug): the caller then throws, and the transaction writes nothing.
 */
export async function insertCreatedDocument(q: Kysely<Database>, d: NewDocument): Promise<{ id: string; pieceTaken: boolean }> {
  const signers = d.signers.map((s) => ({
    signer_id: s.signerId,
    position: s.position,
    authority: s.authority,
    data: s.data,
    name: s.name,
    email: s.email,
    token_hash: s.tokenHash.toString('hex'),
    token_sealed: s.tokenSealed.toString('hex'),
    identity_status: s.requireIdentityVerification ? 'verification_pending' : null,
  }));
  const stickers = d.stickers.map((s) => ({
    sticker_id: s.stickerId,
    signer_position: s.signerPosition,
    sticker_index: s.index,
    page: s.page,
    ...s.rect,
    extra: s.extra,
  }));
  const e = d.firstEntry;
  const query = sql<{ id: string; piece_taken: boolean }>`
    with doc as (
      insert into documents (ticket, account_id, set_id, name, status, origin, source_sha256, original_sha256,
                             size_bytes, page_count, has_flow, workflow, nom151, created_at, updated_at,
                             history_head, history_count)
      values (${d.ticket}, ${d.accountId}, ${d.setId}, ${d.name}, ${d.status}, ${d.origin}, ${d.sha256}, ${d.sha256},
              ${d.sizeBytes}, ${d.pageCount}, ${d.hasFlow}, ${d.workflow === null || d.workflow === undefined ? null : JSON.stringify(d.workflow)}::jsonb,
              ${d.nom151}, ${d.createdAt}, ${d.createdAt}, ${e.hash}, 1)
      returning id
    ), signer_rows as (
      insert into signers (signer_id, document_id, position, authority, data, name, email, token_hash, token_sealed, identity_status)
      select s.signer_id, doc.id, s.position, s.authority, s.data, s.name, s.email,
             decode(s.token_hash, 'hex'), decode(s.token_sealed, 'hex'), s.identity_status
        from doc, jsonb_to_recordset(${JSON.stringify(signers)}::jsonb) as s(signer_id text, position int, authority text,
             data text, name text, email text, token_hash text, token_sealed text, identity_status text)
      returning id, position
    ), sticker_rows as (
      insert into stickers (sticker_id, document_id, signer_row_id, sticker_index, page, lx, ly, tx, ty, extra)
      select k.sticker_id, doc.id, signer_rows.id, k.sticker_index, k.page, k.lx, k.ly, k.tx, k.ty, k.extra
        from doc, jsonb_to_recordset(${JSON.stringify(stickers)}::jsonb) as k(sticker_id text, signer_position int,
             sticker_index int, page int, lx float8, ly float8, tx float8, ty float8, extra jsonb)
        join signer_rows on signer_rows.position = k.signer_position
    ), first_entry as (
      insert into document_history (document_id, seq, at, action, actor, ip, details, prev_hash, hash)
      select doc.id, 1, ${d.createdAt}, ${e.action}, ${e.actor}, ${e.ip}, ${JSON.stringify(e.details)}::jsonb, ${e.prevHash}, ${e.hash}
        from doc
    ), taken as (
      update packages set used = used + 1 where id = ${d.piece.packageId} and used < pieces returning id
    ), consumed as (
      insert into consumption (account_id, kind, channel, package_id, document_id, at)
      select ${d.accountId}, ${d.piece.kind}, ${d.piece.channel}, ${d.piece.packageId}, doc.id, ${d.createdAt} from doc
    )
    select doc.id, (${d.piece.packageId}::bigint is null or exists (select 1 from taken)) as piece_taken from doc`;
  const row = (await executePrepared(q, 'create_document', query.compile(q))).rows[0];
  return { id: String(row.id), pieceTaken: row.piece_taken };
}
