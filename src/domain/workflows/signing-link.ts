// The personal signing link of a signer, opened from its sealed token: invitations and reminders
// send the very link the create response handed out (decisions.md "Create-document response").
import type { Deps } from '../deps.js';

export function signingLink(deps: Pick<Deps, 'config' | 'secrets'>, tokenSealed: Buffer | null): string | null {
  if (!tokenSealed) {
    return null;
  }
  return `${deps.config.publicUrl}/sign/${deps.secrets.open(tokenSealed)}`;
}
