// The images of identity reviews are personal data: once a review is decided they are kept for
// SELLO_IDENTITY_EVIDENCE_DAYS, then deleted (the review, its checks and its decision stay, with
// evidence_deleted_at). Run daily by the identity_evidence_sweep job.
import type { Deps } from '../deps.js';
import { deleteDecidedEvidence } from '../../store/identity-repo.js';

export async function sweepIdentityEvidence(deps: Pick<Deps, 'db' | 'clock' | 'config'>): Promise<number> {
  const now = deps.clock.now();
  const before = new Date(now.getTime() - deps.config.identity.evidenceDays * 86_400_000);
  return deleteDecidedEvidence(deps.db, before, now);
}
