// The name at the top of a document's public verification page: Sello's, or, when the account that
// owns the document hides Sello's name (account-brand.ts), its brand name or its own name.
import type { Deps } from '../deps.js';
import { brandOfTicket } from '../../store/verify-repo.js';

export const SERVICE_NAME = 'Sello';

export async function verifyPageBrand(deps: Pick<Deps, 'db'>, ticket: string): Promise<string> {
  const a = ticket.length <= 100 ? await brandOfTicket(deps.db, ticket) : undefined;
  return a?.hide_sello ? (a.brand_name ?? a.name) : SERVICE_NAME;
}
