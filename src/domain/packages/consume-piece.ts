// One billable action consumes one piece, in the action's own transaction: if the action rolls
// back, so does the piece; if no piece is left, the action fails with 402 and nothing of it stays.
// The piece comes from the valid package of its kind that expires first (decisions.md), so pieces
// bought last are kept for last.
import type { Transaction } from 'kysely';
import { AppError } from '../errors.js';
import type { Db } from '../../store/db.js';
import { listPackages, recordConsumption, takePieceOfKind } from '../../store/packages-repo.js';
import type { Database } from '../../store/schema.js';
import { remainingAt, type PieceKind } from './piece-kinds.js';

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
  const piece = await takePieceOfKind(trx, c);
  // An account that never had a package of this kind has no limit of it (a self-hosted default).
  if (piece.hadPackages && piece.packageId === null) {
    throw exhausted(c.kind);
  }
  await recordConsumption(trx, {
    accountId: c.accountId,
    kind: c.kind,
    channel: c.channel,
    packageId: piece.packageId,
    documentId: c.documentId ?? null,
    at: c.at,
  });
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
  const ofKind = (await listPackages(db, o.accountId)).filter((p) => p.kind === o.kind);
  if (ofKind.length > 0 && remainingAt(ofKind, o.at) === 0) {
    throw exhausted(o.kind);
  }
}
