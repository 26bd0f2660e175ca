// The images of identity verification are personal data. Once a review is decided they are kept
// for SELLO_IDENTITY_EVIDENCE_DAYS, then deleted (the review, its checks and its decision stay, with
// evidence_deleted_at). Images a signer sent but never submitted (drafts: the signer left, or the
// document ended first) are deleted once as old: nothing else would ever remove them. Run daily by
// the identity_evidence_sweep job.
import type { Deps } from '../deps.js';
import { deleteDecidedEvidence, deleteStaleDrafts } from '../../store/identity-repo.js';

export interface EvidenceSweep {
  /** Decided reviews whose images were deleted. */
  reviews: number;
  /** Images never submitted that were deleted. */
  drafts: number;
}

export async function sweepIdentityEvidence(deps: Pick<Deps, 'db' | 'clock' | 'config'>): Promise<EvidenceSweep> {
  const now = deps.clock.now();
  const before = new Date(now.getTime() - deps.config.identity.evidenceDays * 86_400_000);
  return { reviews: await deleteDecidedEvidence(deps.db, before, now), drafts: await deleteStaleDrafts(deps.db, before) };
}
