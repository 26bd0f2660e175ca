// Who asks for a signature, as a signing page shows it: the account's display name and logo (set
// by the operator, `sello account update`), and the workflow's message to its signers. Shared by
// the document link's and the set link's page data.
import type { Deps } from '../deps.js';
import { senderOf } from '../../store/accounts-repo.js';

export interface SenderInfo {
  name: string;
  /** The logo as a data: URL: the signer page's CSP allows images from data: and itself only. */
  logo: string | null;
  /** The brand (account-brand.ts): the header's name and colour, and whether Sello's name is shown. */
  brand_name: string | null;
  brand_colour: string | null;
  hide_sello: boolean;
}

export async function senderInfo(deps: Pick<Deps, 'db'>, accountId: string): Promise<SenderInfo> {
  const a = await senderOf(deps.db, accountId);
  return {
    name: a?.name ?? '',
    logo: a?.logo_png ? `data:image/png;base64,${a.logo_png.toString('base64')}` : null,
    brand_name: a?.brand_name ?? null,
    brand_colour: a?.brand_colour ?? null,
    hide_sello: a?.hide_sello ?? false,
  };
}

/** The workflow's message to its signers (the invitation's), when it has one. */
export function workflowMessage(workflow: unknown): string | null {
  const m = (workflow as { message?: unknown } | null)?.message;
  return typeof m === 'string' && m.trim() !== '' ? m : null;
}
