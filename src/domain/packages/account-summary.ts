// GET /api/account and GET /api/account/packages: what the account has left, and its packages.
import type { Deps } from '../deps.js';
import { findAccountById } from '../../store/accounts-repo.js';
import { listPackages } from '../../store/packages-repo.js';
import { packageView, type PackageView } from './manage-packages.js';
import { PIECE_KINDS, remainingAt, type PieceKind } from './piece-kinds.js';
import type { AccountSummary } from '../../schemas/accounts.js';

export type { AccountSummary };

export async function accountSummary(deps: Pick<Deps, 'db' | 'clock'>, o: { accountId: string }): Promise<AccountSummary> {
  const [account, packages] = await Promise.all([findAccountById(deps.db, o.accountId), listPackages(deps.db, o.accountId)]);
  const now = deps.clock.now();
  const remaining = Object.fromEntries(
    PIECE_KINDS.map((kind) => {
      const ofKind = packages.filter((p) => p.kind === kind);
      return [kind, ofKind.length === 0 ? null : remainingAt(ofKind, now)];
    }),
  ) as Record<PieceKind, number | null>;
  return { web_id: account!.web_id, name: account!.name, remaining };
}

export async function accountPackages(deps: Pick<Deps, 'db'>, o: { accountId: string }): Promise<PackageView[]> {
  return (await listPackages(deps.db, o.accountId)).map(packageView);
}
