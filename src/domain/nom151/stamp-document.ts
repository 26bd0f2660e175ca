// The NOM-151 stamp of one rendition of a document (the nom151_stamp job): an RFC 3161 token over
// SHA-256 of the rendition's exact bytes, checked, stored with the rendition's hash, announced
// (original_nom151_stamped / universal_nom151_stamped) and written in the history, together.
// The token is fetched before the transaction: a slow provider holds no row lock.
import { createHash } from 'node:crypto';
import type { Deps } from '../deps.js';
import { emitEvent } from '../events/emit-event.js';
import { appendHistory } from '../history/append-history.js';
import { clearStampFailure } from '../../store/archival-state-repo.js';
import { documentStamp, insertStamp, stampableDocument, universalSha256 } from '../../store/stamps-repo.js';
import { renditionBytes } from './rendition-bytes.js';
import { consumePiece, requirePieceLeft } from '../packages/consume-piece.js';
import { stampProvider } from './stamp-provider.js';

export type Rendition = 'original' | 'universal';

/** What the run did; only 'stamped' changed anything. */
export type StampOutcome = 'stamped' | 'already_stamped' | 'not_completed' | 'no_rendition' | 'no_document';

export async function stampDocumentRendition(deps: Deps, opts: { documentId: string; rendition: Rendition }): Promise<StampOutcome> {
  const doc = await stampableDocument(deps.db, opts.documentId);
  if (!doc) {
    return 'no_document';
  }
  // A deleted document is stamped all the same: it was completed, and a restore brings it back.
  if (doc.status !== 'completed' && doc.status !== 'deleted') {
    return 'not_completed';
  }
  // The rendition as it is now: an endorsement adds a revision, whose bytes get a stamp of their own.
  const blob = opts.rendition === 'original' ? doc.original_sha256 : await universalSha256(deps.db, doc.id);
  if (!blob) {
    return 'no_rendition';
  }
  if (await documentStamp(deps.db, doc.id, opts.rendition, blob)) {
    return 'already_stamped';
  }
  // Without a stamps piece the job fails and is retried (for about ten days): a package added
  // meanwhile lets it through. Checked before the provider is asked, so no token is wasted.
  await requirePieceLeft(deps.db, { accountId: doc.account_id, kind: 'stamps', at: deps.clock.now() });
  const bytes = await renditionBytes(deps, blob);
  const issued = await stampProvider(deps).stamp(createHash('sha256').update(bytes).digest());

  return deps.db.transaction().execute(async (trx) => {
    const now = deps.clock.now();
    const stored = await insertStamp(trx, {
      accountId: doc.account_id,
      documentId: doc.id,
      subject: opts.rendition,
      coveredSha256: blob,
      token: issued.token,
      provider: issued.provider,
      tsaName: issued.tsa,
      genTime: issued.genTime,
      serial: issued.serial,
      at: now,
    });
    if (!stored) {
      return 'already_stamped' as const; // another run stamped it meanwhile
    }
    await clearStampFailure(trx, doc.id, opts.rendition);
    await consumePiece(trx, { accountId: doc.account_id, kind: 'stamps', channel: opts.rendition, documentId: doc.id, at: now });
    const stamp = { token: issued.token.toString('base64'), tsa: issued.tsa, time: issued.genTime.toISOString() };
    await emitEvent(trx, deps, {
      accountId: doc.account_id,
      documentId: doc.id,
      kind: opts.rendition === 'original' ? 'original_nom151_stamped' : 'universal_nom151_stamped',
      meta: { stamp: { ...stamp, serial: issued.serial, hash: blob, provider: issued.provider } },
      dedupeKey: `nom151:${opts.rendition}:${doc.ticket}:${blob}`,
    });
    await appendHistory(trx, {
      documentId: doc.id,
      at: now,
      action: 'nom151_stamped',
      actor: 'system',
      details: {
        rendition: opts.rendition,
        sha256: blob,
        tsa: issued.tsa,
        provider: issued.provider,
        gen_time: stamp.time,
        serial: issued.serial,
      },
    });
    return 'stamped' as const;
  });
}
