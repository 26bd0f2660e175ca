// `sello account list`, and the account `sello api` acts as when given none: every account with
// its number of active API keys, oldest first.
import type { Deps } from '../deps.js';
import { listAccounts as listAccountRows } from '../../store/accounts-repo.js';

export interface AccountSummary {
  webId: string;
  name: string;
  activeKeys: number;
  webhookUrl: string | null;
  createdAt: Date;
}

export async function listAccounts(deps: Pick<Deps, 'db'>): Promise<AccountSummary[]> {
  const rows = await listAccountRows(deps.db);
  return rows.map((r) => ({
    webId: r.web_id,
    name: r.name,
    activeKeys: r.active_keys,
    webhookUrl: r.webhook_url,
    createdAt: r.created_at,
  }));
}
