// One billable action consumes one piece, in the action's own transaction: if the action rolls
// back, so does the piece; if no piece is left, the action fails with 402 and nothing of it stays.
// The piece comes from the valid package of its kind that expires first (decisions.md), so pieces
// bought last are kept for last.
import type { Transaction } from 'kysely';
import { AppError } from '../errors.js';
import type { Db } from '../../store/db.js';
import { listPackages, lockPackagesOfKind, type PackageRow, recordConsumption, takePiece } from '../../store/packages-repo.js';
import type { Database } from '../../store/schema.js';
import { isValidAt, remainingAt, type PieceKind } from './piece-kinds.js';

export interface Consumption {
  accountId: string;
  kind: PieceKind;
  /** How the action was done, for the consumption report: the document's origin, sms, whatsapp… */
  channel: string;
  documentId?: string;
  at: Date;
}

/** Takes a piece for the action, or throws PACKAGE_EXHAUSTED (402) naming the kind. */
export async function consumePiece(trx: Transaction<Database>, c: Consumption): Promise<void> {
  const packages = await lockPackagesOfKind(trx, c.accountId, c.kind);
  const packageId = sourcePackage(packages, c);
  // The rows are locked: what was read is what is there, so takePiece cannot miss.
  if (packageId !== null && !(await takePiece(trx, packageId))) {
    throw exhausted(c.kind);
  }
  await recordConsumption(trx, {
    accountId: c.accountId,
    kind: c.kind,
    channel: c.channel,
    packageId,
    documentId: c.documentId ?? null,
    at: c.at,
  });
}

/**
 * The package a piece is taken from, for an action that takes it and records its consumption in a
 * statement of its own (a creation: store/create-document-repo.ts). `known` are the account's
 * packages of the kind as read before the transaction. Without any, there is no limit and nothing to
 * lock: a package added while this action runs is not drawn on, as if the action had come first.
 * With some, they are locked and read again, and the choice made on what is there.
 */
export async function pickPiece(
  trx: Transaction<Database>,
  c: Pick<Consumption, 'accountId' | 'kind' | 'at'>,
  known: PackageRow[],
): Promise<string | null> {
  if (known.length === 0) {
    return null;
  }
  return sourcePackage(await lockPackagesOfKind(trx, c.accountId, c.kind), c);
}

/**
 * The valid package of the kind that expires first and has a piece left; null when the account has
 * no package of the kind (a self-hosted default: no limit); PACKAGE_EXHAUSTED when none can give one.
 */
function sourcePackage(packages: PackageRow[], c: Pick<Consumption, 'kind' | 'at'>): string | null {
  if (packages.length === 0) {
    return null;
  }
  const source = packages
    .filter((p) => isValidAt(p, c.at) && p.used < p.pieces)
    .sort((a, b) => a.valid_to.getTime() - b.valid_to.getTime() || Number(a.id) - Number(b.id))[0];
  if (!source) {
    throw exhausted(c.kind);
  }
  return source.id;
}

/** Fails early when `packages` (the kind's, read before the action) have no piece left at `at`. */
export function requirePieceIn(packages: PackageRow[], kind: PieceKind, at: Date): void {
  if (packages.length > 0 && remainingAt(packages, at) === 0) {
    throw exhausted(kind);
  }
}

export function exhausted(kind: PieceKind): AppError {
  return new AppError('PACKAGE_EXHAUSTED', `no ${kind} left in the account's packages: contract a new package to go on`, {
    kind,
  });
}

/**
 * Fails early, before the costly part of an action (a download, a render), when no piece is left.
 * Only a shortcut: consumePiece, under lock in the action's transaction, decides.
 */
export async function requirePieceLeft(db: Db, o: { accountId: string; kind: PieceKind; at: Date }): Promise<void> {
  requirePieceIn(
    (await listPackages(db, o.accountId)).filter((p) => p.kind === o.kind),
    o.kind,
    o.at,
  );
}
