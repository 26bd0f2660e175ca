// The values a set signer sends for the fields of every document still to sign, checked before the
// first signature (or before leaving for a CSC provider): a value refused on the third document must
// not leave the first two signed. One map names fields of every document (their ids are unique
// across documents); each signature checks its own document's again under its lock.
import type { Deps } from '../deps.js';
import type { FieldValues } from '../../schemas/signer-fields.js';
import { fieldsOfSigner } from '../../store/signer-fields-repo.js';
import { accountTimeZone } from '../../store/workflow-repo.js';
import { checkFieldValues, refuseUnknownFields } from '../signing/signer-fields.js';

export async function checkSetFieldValues(
  deps: Pick<Deps, 'db' | 'clock'>,
  o: { accountId: string; rows: { id: string }[]; values: FieldValues | undefined },
): Promise<void> {
  const known = new Set<string>();
  let timeZone: string | undefined;
  for (const row of o.rows) {
    const fields = await fieldsOfSigner(deps.db, row.id);
    if (fields.length > 0) {
      timeZone ??= await accountTimeZone(deps.db, o.accountId);
      checkFieldValues(fields, o.values, { now: deps.clock.now(), timeZone });
    }
    for (const f of fields) {
      known.add(f.field_id);
    }
  }
  refuseUnknownFields(o.values, known);
}
