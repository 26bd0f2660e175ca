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
 * Every package of one kind of the account, locked until the transaction ends. Locking all of
 * them, not only the one a piece will come from, is what makes consumption exact: two actions
 * at once cannot both take the last piece of one package, nor skip a package the other is
 * emptying. It serialises the billable actions of one account and kind, which commit in
 * milliseconds.
 */
export async function lockPackagesOfKind(trx: Transaction<Database>, accountId: string, kind: PieceKind): Promise<PackageRow[]> {
  return trx
    .selectFrom('packages')
    .select(COLUMNS)
    .where('account_id', '=', accountId)
    .where('kind', '=', kind)
    .orderBy('id')
    .forUpdate()
    .execute();
}

/** One more piece used; false when the package had none left (the check constraint's case). */
export async function takePiece(trx: Transaction<Database>, packageId: string): Promise<boolean> {
  const r = await trx
    .updateTable('packages')
    .set({ used: sql`used + 1` })
    .where('id', '=', packageId)
    .where(sql<boolean>`used < pieces`)
    .executeTakeFirst();
  return Number(r.numUpdatedRows) === 1;
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
