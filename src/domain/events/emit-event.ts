// Records that an event happened and queues its deliveries, inside the producer's transaction:
// the state change, its notification and the delivery jobs commit together or not at all
// (DESIGN.md, ways of the house 4). Producers (signing, workflows, NOM-151, messaging) call this.
import type { Transaction } from 'kysely';
import type { Deps } from '../deps.js';
import { newPublicId } from '../ids.js';
import { REJECTION_REASON_MAX, isEventKind, type EventKind, type EventMeta } from './event-types.js';

const GRAPHEMES = new Intl.Segmenter(undefined, { granularity: 'grapheme' });
import { addDeliverWebhookJob } from '../../jobs/payloads/deliver-webhook.js';
import { insertNotification } from '../../store/notifications-repo.js';
import { deliveryTargets, insertDeliveries } from '../../store/webhook-deliveries-repo.js';
import type { Database } from '../../store/schema.js';

export * from './event-types.js';

export interface EmitEventOptions<K extends EventKind> {
  /** Internal id of the account (accounts.id). */
  accountId: string;
  /** Internal id of the document (documents.id) the event is about; it must be the account's. */
  documentId?: string;
  /** Internal id of the set (document_sets.id); defaults to the document's set. */
  documentSetId?: string;
  /** Internal id of the bulk run (bulk_runs.id) a bulk_completed event is about. */
  bulkRunId?: string;
  kind: K;
  meta: EventMeta[K];
  /**
   * Optional key, unique per account, naming this occurrence (e.g. `signed:<signer_id>`): a
   * producer that runs again after a crash (a retried job) emits the event once, and gets the
   * same notification_id back.
   */
  dedupeKey?: string;
}

/**
 * Inserts the notification and one delivery job per target (the account's webhook URL if set, and
 * every active subscription of the account for that kind). Returns the notification_id.
 */
export async function emitEvent<K extends EventKind>(
  trx: Transaction<Database>,
  deps: Pick<Deps, 'clock'>,
  opts: EmitEventOptions<K>,
): Promise<string> {
  if (!isEventKind(opts.kind)) {
    throw new Error(`emitEvent: unknown event kind ${String(opts.kind)}`);
  }
  if (opts.documentId === undefined && opts.documentSetId === undefined && opts.bulkRunId === undefined) {
    throw new Error('emitEvent: an event is about a document, a set, or both, or a bulk run');
  }
  const at = deps.clock.now();
  const n = await insertNotification(trx, {
    notificationId: newPublicId(),
    accountId: opts.accountId,
    documentId: opts.documentId ?? null,
    setId: opts.documentSetId ?? null,
    bulkRunId: opts.bulkRunId ?? null,
    kind: opts.kind,
    meta: clipMeta(opts.kind, opts.meta),
    dedupeKey: opts.dedupeKey ?? null,
    at,
  });
  if (!n.created) {
    // Already emitted (same dedupe key): its deliveries were queued then.
    return n.notificationId;
  }
  const targets = await deliveryTargets(trx, opts.accountId, opts.kind);
  await insertDeliveries(trx, n.id, targets, at);
  for (const t of targets) {
    await addDeliverWebhookJob(trx, { notificationId: n.notificationId, target: t.target });
  }
  return n.notificationId;
}

/** A rejection reason is at most 300 characters in `meta` (decisions.md "Events"). */
function clipMeta<K extends EventKind>(kind: K, meta: EventMeta[K]): EventMeta[K] {
  if (kind === 'document_rejected') {
    const m = meta as EventMeta['document_rejected'];
    // Characters as a person counts them (grapheme clusters), as the rejection itself is checked.
    const clusters = typeof m.reason === 'string' ? [...GRAPHEMES.segment(m.reason)].map((g) => g.segment) : [];
    if (clusters.length > REJECTION_REASON_MAX) {
      return { ...m, reason: clusters.slice(0, REJECTION_REASON_MAX).join('') } as EventMeta[K];
    }
  }
  return meta;
}
