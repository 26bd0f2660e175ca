// The kinds of billable piece and when a package can give one (decisions.md "Accounts and packages").
import type { PackageRow } from '../../store/packages-repo.js';
import type { PieceKind } from '../../store/schema.js';

export type { PieceKind };

export const PIECE_KINDS: readonly PieceKind[] = ['documents', 'verifications', 'messages', 'stamps'];

export function isPieceKind(v: unknown): v is PieceKind {
  return typeof v === 'string' && (PIECE_KINDS as readonly string[]).includes(v);
}

/** A package gives pieces from valid_from (inclusive) to valid_to (exclusive), unless ended. */
export function isValidAt(p: Pick<PackageRow, 'valid_from' | 'valid_to' | 'ended_at'>, at: Date): boolean {
  const t = at.getTime();
  return p.ended_at === null && p.valid_from.getTime() <= t && t < p.valid_to.getTime();
}

/** Pieces still available from the packages valid at `at`. */
export function remainingAt(packages: PackageRow[], at: Date): number {
  return packages.filter((p) => isValidAt(p, at)).reduce((sum, p) => sum + (p.pieces - p.used), 0);
}
