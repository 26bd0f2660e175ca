// SQL of contracted packages and of the consumption of their pieces (migration 0015).
import { type Selectable, sql, type Transaction } from 'kysely';
import type { Db } from './db.js';
import type { Database, PackagesTable, PieceKind } from './schema.js';

const COLUMNS = ['id', 'public_id', 'kind', 'pieces', 'used', 'valid_from', 'valid_to', 'ended_at', 'created_at'] as const;

export type PackageRow = Pick<Selectable<PackagesTable>, (typeof COLUMNS)[number]>;

export async function insertPackage(
  db: Db,
  p: { publicId: string; accountId: string; kind: PieceKind; pieces: number; validFrom: Date; validTo: Date },
): Promise<PackageRow> {
  return db
    .insertInto('packages')
    .values({
      public_id: p.publicId,
      account_id: p.accountId,
      kind: p.kind,
      pieces: p.pieces,
      valid_from: p.validFrom,
      valid_to: p.validTo,
    })
    .returning(COLUMNS)
    .executeTakeFirstOrThrow();
}

/** Every package of the account, newest validity first. */
export async function listPackages(db: Db, accountId: string): Promise<PackageRow[]> {
  return db
    .selectFrom('packages')
    .select(COLUMNS)
    .where('account_id', '=', accountId)
    .orderBy('valid_to', 'desc')
    .orderBy('id', 'desc')
    .execute();
}

/** Ends a package at `at` (if it has not ended already); undefined when it is not the account's. */
export async function endPackage(db: Db, o: { accountId: string; publicId: string; at: Date }): Promise<PackageRow | undefined> {
  await db
    .updateTable('packages')
    .set({ ended_at: o.at })
    .where('account_id', '=', o.accountId)
    .where('public_id', '=', o.publicId)
    .where('ended_at', 'is', null)
    .execute();
  return db
    .selectFrom('packages')
    .select(COLUMNS)
    .where('account_id', '=', o.accountId)
    .where('public_id', '=', o.publicId)
    .executeTakeFirst();
}

/**
 * The piece's source, as common table expressions of the statement that takes it: `kind_packages`,
 * every package of one kind of the account, locked until the transaction ends; `piece_source`, the
 * one a piece comes from: valid at `at` (not ended, from valid_from inclusive to valid_to
 * exclusive) with a piece left, the one that expires first (decisions.md "Accounts and packages").
 * Locking all of them, not only the source, is what makes consumption exact: two actions at once
 * cannot both take the last piece of one package, nor skip a package the other is emptying (a row
 * locked FOR UPDATE is read again in its newest version once its holder commits). It serialises
 * the billable actions of one account and kind, which commit in milliseconds.
 */
export function pieceSourceCtes(o: { accountId: string; kind: PieceKind; at: Date }) {
  return sql`kind_packages as (
      select id, valid_from, valid_to, ended_at, pieces, used from packages
       where account_id = ${o.accountId} and kind = ${o.kind} order by id for update
    ), piece_source as (
      select id from kind_packages
       where ended_at is null and valid_from <= ${o.at} and ${o.at} < valid_to and used < pieces
       order by valid_to, id limit 1
    )`;
}

/**
 * Takes one piece of the kind, in one statement: `packageId` is its package, null when the account
 * has no package of the kind (no limit) or none with a piece left (`hadPackages` tells which).
 */
export async function takePieceOfKind(
  trx: Transaction<Database>,
  o: { accountId: string; kind: PieceKind; at: Date },
): Promise<{ hadPackages: boolean; packageId: string | null }> {
  const r = await sql<{ had_packages: boolean; package_id: string | null }>`
    with ${pieceSourceCtes(o)}, taken as (
      update packages set used = used + 1 where id = (select id from piece_source) returning id
    )
    select exists (select 1 from kind_packages) as had_packages, (select id from taken) as package_id`.execute(trx);
  const row = r.rows[0];
  return { hadPackages: row.had_packages, packageId: row.package_id === null ? null : String(row.package_id) };
}

export async function recordConsumption(
  trx: Transaction<Database>,
  c: { accountId: string; kind: PieceKind; channel: string; packageId: string | null; documentId: string | null; at: Date },
): Promise<void> {
  await trx
    .insertInto('consumption')
    .values({
      account_id: c.accountId,
      kind: c.kind,
      channel: c.channel,
      package_id: c.packageId,
      document_id: c.documentId,
      at: c.at,
    })
    .execute();
}

/** The kinds the account has ever had a package of (a kind without one has no limit). */
export async function packageKinds(db: Db, accountId: string): Promise<PieceKind[]> {
  const rows = await db.selectFrom('packages').select('kind').distinct().where('account_id', '=', accountId).execute();
  return rows.map((r) => r.kind);
}

/** Pieces consumed between `from` (inclusive) and `to` (exclusive), by kind and channel. */
export async function consumptionCounts(
  db: Db,
  o: { accountId: string; from: Date; to: Date },
): Promise<{ kind: PieceKind; channel: string; count: number }[]> {
  const rows = await db
    .selectFrom('consumption')
    .select(['kind', 'channel', sql<string>`count(*)`.as('count')])
    .where('account_id', '=', o.accountId)
    .where('at', '>=', o.from)
    .where('at', '<', o.to)
    .groupBy(['kind', 'channel'])
    .execute();
  return rows.map((r) => ({ kind: r.kind, channel: r.channel, count: Number(r.count) }));
}
