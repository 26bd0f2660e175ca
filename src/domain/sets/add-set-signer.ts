// POST /api/documentset/{uuid}/signer: preloads a signer for the whole set while it is OPEN, not yet
// tied to a page or a box. `authority`, `data`, `name` and `email` follow the sticker rules. One
// signer per (authority, data): adding the same pair again returns the signer the set has.
import { AppError, invalid } from '../errors.js';
import type { Deps } from '../deps.js';
import { isEmail, normalizeSignerData } from '../documents/authorities.js';
import { newPublicId } from '../ids.js';
import { findSet, type SetRow } from '../../store/documents-repo.js';
import { countSetSigners, insertSetSigner, type SetSignerRow } from '../../store/set-signers-repo.js';
import type { AddSetSignerBody, SetSignerView } from '../../schemas/sets.js';

export type { SetSignerView };

export async function addSetSigner(
  deps: Pick<Deps, 'db' | 'clock' | 'config'>,
  o: { accountId: string; uuid: string; body: AddSetSignerBody },
): Promise<SetSignerView> {
  const b = o.body;
  // The sticker rules for the data and the email (authorities.ts), beyond the schema's types.
  if (b.data.trim() === '') {
    throw invalid('data', 'required: the signer identifier for the authority');
  }
  const data = normalizeSignerData(b.authority, b.data);
  if (!data.ok) {
    throw invalid('data', data.rule);
  }
  const name = trimmed(b.name);
  const email = trimmed(b.email)?.toLowerCase() ?? null;
  if (email !== null && !isEmail(email)) {
    throw invalid('email', 'must be an email address');
  }
  const isMail = b.authority === 'EMAIL' || b.authority === 'EMAIL_LINK';
  return deps.db.transaction().execute(async (trx) => {
    const set = requireOpenSet(await findSet(trx, o.accountId, o.uuid, true), o.uuid);
    const limit = deps.config.limits.signersPerDocument;
    const existing = await countSetSigners(trx, set.id);
    const { row, created } = await insertSetSigner(trx, {
      signerId: newPublicId(),
      setId: set.id,
      authority: b.authority,
      data: data.value,
      name,
      email: email ?? (isMail ? data.value : null),
      preloaded: true,
      at: deps.clock.now(),
    });
    if (created && existing >= limit) {
      throw invalid('data', `a set holds at most ${limit} preloaded signers`);
    }
    return view(row);
  });
}

/** The set, if it exists in the account and is OPEN; else the error a client should see. */
export function requireOpenSet(set: SetRow | undefined, uuid: string): SetRow {
  if (!set) {
    throw new AppError('DOCUMENT_SET_NOT_FOUND', `no document set ${uuid}`);
  }
  if (set.status !== 'OPEN') {
    throw new AppError('DOCUMENT_SET_CLOSED', `the set is ${set.status}: its signers are fixed once it is closed`, { status: set.status });
  }
  return set;
}

function view(r: SetSignerRow): SetSignerView {
  return { signer_id: r.signer_id, authority: r.authority, data: r.data, name: r.name, email: r.email, position: r.position };
}

/** A name or address as stored: trimmed, and null when blank. */
function trimmed(v: string | undefined): string | null {
  return v === undefined || v.trim() === '' ? null : v.trim();
}
