// POST /api/timestamp {hash}: a NOM-151 stamp over a client's SHA-256. The token is checked
// before it is stored and answered; a provider that is down stores nothing (503).
import type { Transaction } from 'kysely';
import type { Deps } from '../deps.js';
import type { Database } from '../../store/schema.js';
import type { Static } from '@sinclair/typebox';
import type { StampAnswer, StampHashBody } from '../../schemas/stamps.js';
import { insertStamp } from '../../store/stamps-repo.js';
import { parseSha256 } from './parse-hash.js';
import { consumePiece, requirePieceLeft } from '../packages/consume-piece.js';
import { type IssuedStamp, PROVIDER_DESCRIPTION, stampProvider } from './stamp-provider.js';

/** The answer of every stamp operation (decisions.md "Long-term validity and NOM-151"), typed by its schema. */
export type { StampAnswer };

export function stampAnswer(s: IssuedStamp): StampAnswer {
  return {
    stamp: s.token.toString('base64'),
    tsa: s.tsa,
    gen_time: s.genTime.toISOString(),
    serial: s.serial,
    hash: s.hash,
    provider: s.provider,
    provider_description: PROVIDER_DESCRIPTION[s.provider],
  };
}

export async function stampHash(deps: Deps, opts: { accountId: string; body: Static<typeof StampHashBody> }): Promise<StampAnswer> {
  const imprint = parseSha256(opts.body.hash, 'hash');
  await requirePieceLeft(deps.db, { accountId: opts.accountId, kind: 'stamps', at: deps.clock.now() });
  const issued = await stampProvider(deps).stamp(imprint);
  await recordApiStamp(deps, opts.accountId, 'hash', issued);
  return stampAnswer(issued);
}

/**
 * An API stamp (of a client's hash or PDF), kept for the account's record with the stamps piece it
 * took, in one transaction: a refused piece (402) stores nothing.
 */
export async function recordApiStamp(deps: Deps, accountId: string, subject: 'hash' | 'pdf', issued: IssuedStamp): Promise<void> {
  await deps.db.transaction().execute((trx) => recordApiStampIn(trx, deps, accountId, subject, issued));
}

/**
 * The same inside the caller's transaction, for an action whose result must be kept with the piece
 * it spends (the certified email's evidence PDF): both commit, or neither.
 */
export async function recordApiStampIn(
  trx: Transaction<Database>,
  deps: Pick<Deps, 'clock'>,
  accountId: string,
  subject: 'hash' | 'pdf',
  issued: IssuedStamp,
): Promise<void> {
  await consumePiece(trx, { accountId, kind: 'stamps', channel: subject, at: deps.clock.now() });
  await insertStamp(trx, {
    accountId,
    documentId: null,
    subject,
    coveredSha256: issued.hash,
    token: issued.token,
    provider: issued.provider,
    tsaName: issued.tsa,
    genTime: issued.genTime,
    serial: issued.serial,
    at: deps.clock.now(),
  });
}
