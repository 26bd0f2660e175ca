// `sello account package add | list | end`: the operator contracts, lists and ends an account's
// packages, on the database, whether or not the service runs.
import { AppError, invalid } from '../errors.js';
import type { Deps } from '../deps.js';
import { newPublicId } from '../ids.js';
import { findAccountByWebId } from '../../store/accounts-repo.js';
import { endPackage, insertPackage, listPackages, type PackageRow } from '../../store/packages-repo.js';
import { isPieceKind, PIECE_KINDS } from './piece-kinds.js';
import type { AccountPackage } from '../../schemas/accounts.js';

/** A package as the API and the command line show it (decisions.md). */
export type PackageView = AccountPackage;

export function packageView(p: PackageRow): PackageView {
  return {
    id: p.public_id,
    kind: p.kind,
    pieces: p.pieces,
    used: p.used,
    valid_from: p.valid_from.toISOString(),
    valid_to: p.valid_to.toISOString(),
    ...(p.ended_at ? { ended_at: p.ended_at.toISOString() } : {}),
  };
}

async function accountId(deps: Pick<Deps, 'db'>, webId: string): Promise<string> {
  const account = await findAccountByWebId(deps.db, webId);
  if (!account) {
    throw new AppError('ACCOUNT_NOT_FOUND', `no account with web id ${webId}`);
  }
  return account.id;
}

export async function addPackage(
  deps: Pick<Deps, 'db' | 'clock'>,
  o: { webId: string; kind: string; pieces: number; validFrom?: Date; validTo?: Date; days?: number },
): Promise<PackageView> {
  if (!isPieceKind(o.kind)) {
    throw invalid('kind', `expected one of ${PIECE_KINDS.join(', ')}`);
  }
  if (!Number.isInteger(o.pieces) || o.pieces < 1 || o.pieces > 100_000_000) {
    throw invalid('pieces', 'expected a whole number from 1 to 100000000');
  }
  const from = o.validFrom ?? deps.clock.now();
  const to = o.validTo ?? (o.days === undefined ? undefined : new Date(from.getTime() + o.days * 86_400_000));
  if (!to || Number.isNaN(from.getTime()) || Number.isNaN(to.getTime()) || to.getTime() <= from.getTime()) {
    throw invalid('valid_to', 'expected an end after the start (--days N or --to DATE)');
  }
  const id = await accountId(deps, o.webId);
  return packageView(
    await insertPackage(deps.db, { publicId: newPublicId(), accountId: id, kind: o.kind, pieces: o.pieces, validFrom: from, validTo: to }),
  );
}

export async function listAccountPackages(deps: Pick<Deps, 'db'>, o: { webId: string }): Promise<PackageView[]> {
  return (await listPackages(deps.db, await accountId(deps, o.webId))).map(packageView);
}

/** Ends a package now: it gives no more pieces; what it gave stays counted. */
export async function endAccountPackage(deps: Pick<Deps, 'db' | 'clock'>, o: { webId: string; id: string }): Promise<PackageView> {
  const row = await endPackage(deps.db, { accountId: await accountId(deps, o.webId), publicId: o.id, at: deps.clock.now() });
  if (!row) {
    throw new AppError('PACKAGE_NOT_FOUND', `no package ${o.id} in account ${o.webId}`);
  }
  return packageView(row);
}
