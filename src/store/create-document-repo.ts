// The statement of a creation (domain/documents/create-document.ts): the document with everything
// that commits with it, the account's NOM-151 default and its packages read where they are used.
//
// Why one statement: a creation used to send twelve, each a round trip, a parse, a plan and an
// execution in PostgreSQL; at hundreds of documents a second they were most of a creation's cost
// (docs/performance.md, "Where a creation's time goes"). PostgreSQL runs a data-modifying WITH as
// one statement: every part commits or none does, and the parts see each other only through
// RETURNING, which is all they need here (the signers' ids for their stickers).
import { type Kysely, type Selectable, sql } from 'kysely';
import { blobSharedLockSql } from './blob-fence.js';
import { pieceSourceCtes } from './packages-repo.js';
import type { StoredPageSize } from './page-sizes-repo.js';
import { executePrepared } from './prepared.js';
import type { Database, DocumentStatus, DocumentsTable } from './schema.js';

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
  /** The document's NOM-151 choice; null: the account's default (decided at creation). */
  nom151: boolean | null;
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
    certificateMatch?: { field: string; value: string } | null;
  }[];
  stickers: {
    stickerId: string;
    signerPosition: number;
    index: number;
    page: number;
    rect: { lx: number; ly: number; tx: number; ty: number };
    extra: Record<string, unknown>;
  }[];
  /** The fields signers fill (signer_fields), each filled by the signer at signerPosition. */
  signerFields?: {
    fieldId: string;
    stickerId: string;
    signerPosition: number;
    index: number;
    type: string;
    page: number;
    rect: { lx: number; ly: number; tx: number; ty: number };
    required: boolean;
    label: string | null;
    format: string | null;
    options: string[] | null;
    dateFormat: string | null;
  }[];
  /** The file's page sizes for the signer pages (pdf_page_sizes; kept once per file). */
  pageSizes: StoredPageSize[];
  /** The history's first entry: the chain's start (prev_hash) and its hash, computed by the caller. */
  firstEntry: { action: string; actor: string; ip: string | null; details: unknown; prevHash: string; hash: string };
  /** How the consumed piece is reported (the document's origin). */
  channel: string;
}

/**
 * The document, its signers, stickers and first history entry (the document's head points at it),
 * and the piece it consumes, taken from the account's packages (packages-repo.ts, pieceSourceCtes)
 * and recorded, in one statement: a transaction of its own, or part of the caller's when it locked
 * a set first. Undefined, with nothing written, when the account has packages of documents and none
 * with a piece left. The statement holds the file's blob lock (blob-fence.ts) until it commits; the
 * caller then makes sure the file is still stored (ensureBlob).
 */
export async function insertCreatedDocument(q: Kysely<Database>, d: NewDocument): Promise<string | undefined> {
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
    certificate_match: s.certificateMatch ?? null,
  }));
  const stickers = d.stickers.map((s) => ({
    sticker_id: s.stickerId,
    signer_position: s.signerPosition,
    sticker_index: s.index,
    page: s.page,
    ...s.rect,
    extra: s.extra,
  }));
  const fields = (d.signerFields ?? []).map((f) => ({
    field_id: f.fieldId,
    sticker_id: f.stickerId,
    signer_position: f.signerPosition,
    field_index: f.index,
    type: f.type,
    page: f.page,
    ...f.rect,
    required: f.required,
    label: f.label,
    format: f.format,
    options: f.options,
    date_format: f.dateFormat,
  }));
  const e = d.firstEntry;
  const workflow = d.workflow === null || d.workflow === undefined ? null : JSON.stringify(d.workflow);
  const query = sql<{ id: string }>`
    with ${pieceSourceCtes({ accountId: d.accountId, kind: 'documents', at: d.createdAt })},
    blob_fence as (${blobSharedLockSql(d.sha256)}), doc as (
      insert into documents (ticket, account_id, set_id, name, status, origin, source_sha256, original_sha256,
                             size_bytes, page_count, has_flow, workflow, nom151, created_at, updated_at,
                             history_head, history_count)
      select ${d.ticket}, ${d.accountId}, ${d.setId}, ${d.name}, ${d.status}, ${d.origin}, ${d.sha256}, ${d.sha256},
             ${d.sizeBytes}, ${d.pageCount}, ${d.hasFlow}, ${workflow}::jsonb,
             coalesce(${d.nom151}::boolean, (select nom151_default from accounts where id = ${d.accountId})),
             ${d.createdAt}, ${d.createdAt}, ${e.hash}, 1
       where exists (select 1 from blob_fence)
         and (not exists (select 1 from kind_packages) or exists (select 1 from piece_source))
      returning id
    ), taken as (
      update packages set used = used + 1 where id = (select id from piece_source) and exists (select 1 from doc)
    ), signer_rows as (
      insert into signers (signer_id, document_id, position, authority, data, name, email, token_hash, token_sealed, identity_status,
                           certificate_match)
      select s.signer_id, doc.id, s.position, s.authority, s.data, s.name, s.email,
             decode(s.token_hash, 'hex'), decode(s.token_sealed, 'hex'), s.identity_status, s.certificate_match
        from doc, jsonb_to_recordset(${JSON.stringify(signers)}::jsonb) as s(signer_id text, position int, authority text,
             data text, name text, email text, token_hash text, token_sealed text, identity_status text, certificate_match jsonb)
      returning id, position
    ), sticker_rows as (
      insert into stickers (sticker_id, document_id, signer_row_id, sticker_index, page, lx, ly, tx, ty, extra)
      select k.sticker_id, doc.id, signer_rows.id, k.sticker_index, k.page, k.lx, k.ly, k.tx, k.ty, k.extra
        from doc, jsonb_to_recordset(${JSON.stringify(stickers)}::jsonb) as k(sticker_id text, signer_position int,
             sticker_index int, page int, lx float8, ly float8, tx float8, ty float8, extra jsonb)
        join signer_rows on signer_rows.position = k.signer_position
    ), signer_field_rows as (
      insert into signer_fields (document_id, field_id, signer_row_id, sticker_id, field_index, type, page, lx, ly, tx, ty,
                                 required, label, format, options, date_format)
      select doc.id, f.field_id, signer_rows.id, f.sticker_id, f.field_index, f.type, f.page, f.lx, f.ly, f.tx, f.ty,
             f.required, f.label, f.format, f.options, f.date_format
        from doc, jsonb_to_recordset(${JSON.stringify(fields)}::jsonb) as f(field_id text, sticker_id text, signer_position int,
             field_index int, type text, page int, lx float8, ly float8, tx float8, ty float8, required boolean, label text,
             format text, options jsonb, date_format text)
        join signer_rows on signer_rows.position = f.signer_position
    ), first_entry as (
      insert into document_history (document_id, seq, at, action, actor, ip, details, prev_hash, hash)
      select doc.id, 1, ${d.createdAt}, ${e.action}, ${e.actor}, ${e.ip}, ${JSON.stringify(e.details)}::jsonb, ${e.prevHash}, ${e.hash}
        from doc
    ), page_sizes as (
      insert into pdf_page_sizes (sha256, pages)
      select ${d.sha256}, ${JSON.stringify(d.pageSizes)}::jsonb from doc
          on conflict (sha256) do nothing
    ), consumed as (
      insert into consumption (account_id, kind, channel, package_id, document_id, at)
      select ${d.accountId}, 'documents', ${d.channel}, (select id from piece_source), doc.id, ${d.createdAt} from doc
    )
    select doc.id from doc`;
  const row = (await executePrepared(q, 'create_document', query.compile(q))).rows[0];
  return row === undefined ? undefined : String(row.id);
}
