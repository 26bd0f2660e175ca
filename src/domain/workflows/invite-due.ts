// Who is invited now: in an unordered flow every signer still to act who has not been invited; in
// an ordered one only the first signer (sticker order) still to act, and only once.
import type { Transaction } from 'kysely';
import type { Deps } from '../deps.js';
import type { Database } from '../../store/schema.js';
import { flowSigners, type FlowDocument } from '../../store/workflow-repo.js';
import { effectiveWorkflow } from './effective-workflow.js';
import { inviteSigner } from './invite-signer.js';

export const isOpen = (status: string) => status !== 'signed' && status !== 'rejected';

export async function inviteDue(trx: Transaction<Database>, deps: Deps, doc: FlowDocument): Promise<number> {
  const open = (await flowSigners(trx, doc.id)).filter((s) => isOpen(s.status));
  const due = effectiveWorkflow(doc.workflow).ordered ? open.slice(0, 1) : open;
  let sent = 0;
  for (const signer of due) {
    if (!signer.invited_at) {
      await inviteSigner(trx, deps, { document: doc, signer, reminder: false });
      sent++;
    }
  }
  return sent;
}
