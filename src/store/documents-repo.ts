// SQL for documents, their signers and stickers, and document sets.
import { type Selectable, sql, type Transaction } from 'kysely';
import type { Db } from './db.js';
import type { Database, DocumentSetsTable, DocumentStatus, DocumentsTable, SetStatus } from './schema.js';

const DOC_COLUMNS = [
  'id',
  'ticket',
  'name',
  'status',
  'status_before_delete',
  'source_sha256',
  'original_sha256',
  'created_at',
  'set_id',
] as const;

export type DocumentRow = Pick<Selectable<DocumentsTable>, (typeof DOC_COLUMNS)[number]>;

export async function findDocument(db: Db, accountId: string, ticket: string): Promise<DocumentRow | undefined> {
  return db.selectFrom('documents').select(DOC_COLUMNS).where('account_id', '=', accountId).where('ticket', '=', ticket).executeTakeFirst();
}

/** Moves a document between states only from the expected one (a conditional UPDATE: no lost race). */
export async function transitionDocument(
  db: Db,
  id: string,
  from: DocumentStatus[],
  to: { status: DocumentStatus; statusBeforeDelete: DocumentStatus | null; deletedAt: Date | null; at: Date },
): Promise<boolean> {
  const r = await db
    .updateTable('documents')
    .set({
      status: to.status,
      status_before_delete: to.statusBeforeDelete,
      deleted_at: to.deletedAt,
      updated_at: to.at,
    })
    .where('id', '=', id)
    .where('status', 'in', from)
    .executeTakeFirst();
  return Number(r.numUpdatedRows) === 1;
}

export interface ListedDocument {
  id: string;
  ticket: string;
  name: string;
  status: DocumentStatus;
  created_at: Date;
  signers: {
    signer_id: string;
    name: string | null;
    email: string | null;
    authority: string;
    data: string;
    status: string;
    delivery_error: {
      channel: 'sms' | 'whatsapp';
      kind: 'invitation' | 'reminder' | 'otp';
      code: string | null;
      reply: string | null;
      failed_at: string;
    } | null;
  }[];
}

/** Newest first, keyset-paged on (created_at, id); each signer with the last message to them that failed for good. */
export async function listDocuments(
  db: Db,
  q: {
    accountId: string;
    from: Date;
    to: Date;
    limit: number;
    after?: { createdAt: Date; id: string };
    /** The account panel's filters: a state, and text found in the name or in a signer's name or email. */
    status?: string;
    search?: string;
    /** One document (the panel's document page). */
    ticket?: string;
  },
): Promise<ListedDocument[]> {
  let query = db
    .selectFrom('documents as d')
    .select(['d.id', 'd.ticket', 'd.name', 'd.status', 'd.created_at'])
    .select(
      sql<ListedDocument['signers']>`coalesce((
        select json_agg(json_build_object('signer_id', s.signer_id, 'name', s.name, 'email', s.email,
               'authority', s.authority, 'data', s.data,
               -- before signing or rejecting, a signer asked to verify their identity is in its state
               'status', case when s.identity_status is not null and s.status not in ('signed', 'rejected')
                              then s.identity_status else s.status end,
               'delivery_error', (select json_build_object('channel', m.channel, 'kind', m.kind, 'code', m.error_code,
                   'reply', m.reply, 'failed_at', to_char(m.failed_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'))
                 from channel_messages m where m.document_id = d.id and m.signer_id = s.signer_id and m.status = 'failed'
                 order by m.failed_at desc, m.id desc limit 1)) order by s.position)
        from signers s where s.document_id = d.id and s.role = 'signer'), '[]'::json)`.as('signers'),
    )
    .where('d.account_id', '=', q.accountId)
    .where('d.created_at', '>=', q.from)
    .where('d.created_at', '<=', q.to);
  if (q.ticket !== undefined) {
    query = query.where('d.ticket', '=', q.ticket);
  }
  if (q.status !== undefined) {
    query = query.where('d.status', '=', q.status as ListedDocument['status']);
  }
  if (q.search !== undefined) {
    // ILIKE with the wildcards of the text escaped: a search for "50%" finds "50%", not everything.
    const pattern = `%${q.search.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    query = query.where((eb) =>
      eb.or([
        eb('d.name', 'ilike', pattern),
        eb.exists(
          eb
            .selectFrom('signers as s2')
            .select('s2.id')
            .whereRef('s2.document_id', '=', 'd.id')
            .where('s2.role', '=', 'signer')
            .where((e2) => e2.or([e2('s2.name', 'ilike', pattern), e2('s2.email', 'ilike', pattern), e2('s2.data', 'ilike', pattern)])),
        ),
      ]),
    );
  }
  if (q.after) {
    const { createdAt, id } = q.after;
    query = query.where((eb) =>
      eb.or([eb('d.created_at', '<', createdAt), eb.and([eb('d.created_at', '=', createdAt), eb('d.id', '<', id)])]),
    );
  }
  return query.orderBy('d.created_at', 'desc').orderBy('d.id', 'desc').limit(q.limit).execute();
}

export type SetRow = Pick<Selectable<DocumentSetsTable>, 'id' | 'uuid' | 'name' | 'status' | 'metadata' | 'created_at'>;

export async function insertSet(db: Db, s: { uuid: string; accountId: string; name: string; metadata: unknown; at: Date }) {
  return db
    .insertInto('document_sets')
    .values({
      uuid: s.uuid,
      account_id: s.accountId,
      name: s.name,
      metadata: s.metadata === undefined ? null : JSON.stringify(s.metadata),
      created_at: s.at,
      updated_at: s.at,
    })
    .returning(['id', 'uuid', 'name', 'status', 'metadata', 'created_at'])
    .executeTakeFirstOrThrow();
}

export async function findSet(db: Db | Transaction<Database>, accountId: string, uuid: string, lock = false) {
  let q = db
    .selectFrom('document_sets')
    .select(['id', 'uuid', 'name', 'status', 'metadata', 'created_at'])
    .where('account_id', '=', accountId)
    .where('uuid', '=', uuid);
  if (lock) {
    // Held until the adding transaction commits, so a concurrent close cannot slip in between.
    q = q.forUpdate();
  }
  return (await q.executeTakeFirst()) as SetRow | undefined;
}

export async function countSetDocuments(trx: Transaction<Database>, setId: string): Promise<number> {
  const r = await trx
    .selectFrom('documents')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .where('set_id', '=', setId)
    .executeTakeFirstOrThrow();
  return Number(r.n);
}

export async function setDocuments(db: Db, setId: string) {
  return db
    .selectFrom('documents as d')
    .select(['d.id', 'd.ticket', 'd.name', 'd.status', 'd.created_at'])
    .select(
      sql<{ signer_id: string; authority: string; data: string; name: string | null; status: string }[]>`coalesce((
        select json_agg(json_build_object('signer_id', s.signer_id, 'authority', s.authority, 'data', s.data,
               'name', s.name, 'status', s.status) order by s.position)
        from signers s where s.document_id = d.id and s.role = 'signer'), '[]'::json)`.as('signers'),
    )
    .where('d.set_id', '=', setId)
    .orderBy('d.id')
    .execute();
}

export async function setStatusOf(db: Db | Transaction<Database>, setId: string): Promise<SetStatus | undefined> {
  const r = await db.selectFrom('document_sets').select('status').where('id', '=', setId).executeTakeFirst();
  return r?.status;
}

/** What the history PDF needs of a document: its id, name, workflow and the account's time zone. */
export async function findDocumentForHistory(
  db: Db,
  ticket: string,
  accountId: string,
): Promise<{ id: string; name: string; workflow: unknown; timeZone: string } | undefined> {
  return db
    .selectFrom('documents as d')
    .innerJoin('accounts as a', 'a.id', 'd.account_id')
    .select(['d.id', 'd.name', 'd.workflow', 'a.time_zone as timeZone'])
    .where('d.ticket', '=', ticket)
    .where('d.account_id', '=', accountId)
    .executeTakeFirst();
}
