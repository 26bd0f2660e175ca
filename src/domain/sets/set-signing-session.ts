// The set signer behind a set link (/sign/set/{token}), the documents they have boxes on, and
// whether they may act now. Set tokens are random and stored hashed, like document tokens. Acting on
// a set is done document by document through the per-document signing use cases, each document
// signer row opened with its own sealed token: one path for every signature.
import { AppError } from '../errors.js';
import type { Deps } from '../deps.js';
import { hashToken } from '../ids.js';
import { openSession, type SigningSession } from '../signing/signing-session.js';
import { isOpen } from '../workflows/invite-due.js';
import type { Db } from '../../store/db.js';
import {
  findSetSignerByToken,
  listSetSigners,
  signerRowsOf,
  type SetSignerBehindToken,
  type SignerRowOfSet,
} from '../../store/set-signers-repo.js';
import { dueSetSigners } from './invite-set-signer.js';

export interface SetSigningSession extends SetSignerBehindToken {
  /** The document signer rows this person stands for, in the set's document order. */
  rows: SignerRowOfSet[];
}

const TOKEN = /^[A-Za-z0-9_-]{43}$/;

const SET_NOT_SIGNABLE: Record<string, string> = {
  OPEN: 'this set has not been sent for signing yet',
  COMPLETED: 'every document of this set is already signed',
  REJECTED: 'a signer rejected a document of this set; it can no longer be signed',
  EXPIRED: 'the signing period of this set has ended',
  CANCELLED: 'the signing of this set was cancelled',
};

export async function openSetSession(db: Db, token: string): Promise<SetSigningSession> {
  const found = TOKEN.test(token) ? await findSetSignerByToken(db, hashToken(token)) : undefined;
  if (!found) {
    throw new AppError('SIGNING_LINK_INVALID', 'this signing link is not valid; ask the sender for a new one');
  }
  return { ...found, rows: await signerRowsOf(db, found.signer.id) };
}

/** The rows still waiting for this person's signature. */
export function openRows(s: SetSigningSession): SignerRowOfSet[] {
  return s.rows.filter((r) => r.document_status === 'pending' && isOpen(r.status));
}

/** Whether the flow waits for this person now (always, unless an ordered flow has not reached them). */
export async function isDue(db: Db, s: SetSigningSession): Promise<boolean> {
  return dueSetSigners(await listSetSigners(db, s.set.id), s.set.workflow).some((x) => x.id === s.signer.id);
}

/** Refuses a set that can no longer be acted on, a signer who already acted, or one not yet due. */
export async function requireSetActionable(db: Db, s: SetSigningSession): Promise<SignerRowOfSet[]> {
  const reason = SET_NOT_SIGNABLE[s.set.status];
  if (reason) {
    throw new AppError('DOCUMENT_NOT_SIGNABLE', reason, { status: s.set.status });
  }
  if (s.signer.status === 'rejected') {
    throw new AppError('ALREADY_SIGNED', 'you have already rejected this set');
  }
  const open = openRows(s);
  if (s.signer.status === 'signed' || open.length === 0) {
    throw new AppError('ALREADY_SIGNED', 'you have already signed every document of this set');
  }
  if (!(await isDue(db, s))) {
    throw new AppError(
      'NOT_YOUR_TURN',
      'this set is signed in order and it is not your turn yet: the signers before you must sign first; you will get an email when it is',
    );
  }
  return open;
}

/** The per-document signing session of one of the set signer's rows. */
export async function rowSession(deps: Pick<Deps, 'db' | 'secrets'>, row: SignerRowOfSet): Promise<SigningSession> {
  return openSession(deps.db, rowToken(deps, row));
}

export function rowToken(deps: Pick<Deps, 'secrets'>, row: SignerRowOfSet): string {
  if (!row.token_sealed) {
    throw new AppError('SIGNING_LINK_INVALID', 'this document cannot be signed through the set link; use its own link');
  }
  return deps.secrets.open(row.token_sealed);
}
