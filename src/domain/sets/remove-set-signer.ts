// DELETE /api/documentset/{uuid}/signer/{signerId}: removes a preloaded signer while the set is OPEN
// (once closed, the set's signers are fixed).
import { AppError } from '../errors.js';
import type { Deps } from '../deps.js';
import { findSet } from '../../store/documents-repo.js';
import { deleteSetSigner } from '../../store/set-signers-repo.js';
import { requireOpenSet } from './add-set-signer.js';
import type { RemovedSetSigner } from '../../schemas/sets.js';

export async function removeSetSigner(
  deps: Pick<Deps, 'db'>,
  o: { accountId: string; uuid: string; signerId: string },
): Promise<RemovedSetSigner> {
  return deps.db.transaction().execute(async (trx) => {
    const set = requireOpenSet(await findSet(trx, o.accountId, o.uuid, true), o.uuid);
    if (!(await deleteSetSigner(trx, set.id, o.signerId))) {
      throw new AppError('SIGNER_NOT_FOUND', `the set has no signer ${o.signerId}`);
    }
    return { status: 'deleted' as const, signer_id: o.signerId };
  });
}
