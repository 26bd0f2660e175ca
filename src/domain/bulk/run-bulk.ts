// The work of a bulk run (job `bulk_run`): each row's payload goes through the schema and the use
// case of POST /developers/json, so every rule and error is a single create's. At most one
// document per row: a row is claimed under a token, and its outcome is written in the document's
// own transaction only while that token still holds it; a worker that stops midway leaves rows
// `claimed` without a document, and the next one makes them.
import { checkInput } from '../check-input.js';
import type { Deps } from '../deps.js';
import { AppError } from '../errors.js';
import { newPublicId } from '../ids.js';
import { createDocument } from '../documents/create-document.js';
import { emitEvent } from '../events/emit-event.js';
import { exhausted } from '../packages/consume-piece.js';
import { remainingAt } from '../packages/piece-kinds.js';
import { listPackages } from '../../store/packages-repo.js';
import { rowPayload } from './row-payload.js';
import { CreateDocumentBody } from '../../schemas/documents.js';
import { claimRows, countRows, finishRun, findRunById, markRestNotMade, recordCreated, recordRefused } from '../../store/bulk-repo.js';

/** Rows made at once: the documents of a batch are created side by side (PDF work runs in worker threads). */
export const BULK_BATCH = 4;

/** The claim of a row went to another worker: this one leaves the run to it. */
class ClaimLost extends Error {}

type RowOutcome = 'created' | 'refused' | 'exhausted' | 'lost';

export interface RunBulkOptions {
  runId: string;
  /** Where a row's unexpected failure is logged (its answer says only INTERNAL). */
  logError?: (message: string) => void;
  /** Called after each batch with the rows done so far in this call; a test stops a worker midway with it. */
  afterBatch?: (done: number) => void | Promise<void>;
}

/** Makes the run's rows not done yet, then ends the run; what happened to the run as this call left it. */
export async function runBulk(deps: Deps, opts: RunBulkOptions): Promise<'finished' | 'left' | 'not_running'> {
  const run = await findRunById(deps.db, opts.runId);
  if (run?.state !== 'running') {
    return 'not_running';
  }
  const base = run.base as Record<string, unknown>;
  // One read of the source for every row; each row decodes it as a single create would.
  const source = run.source_sha256 === null ? undefined : (await deps.blobs.get(run.source_sha256)).toString('base64');
  const token = newPublicId();
  let done = 0;
  for (;;) {
    const batch = await claimRows(deps.db, run.id, token, await batchSize(deps, run.account_id), deps.clock.now());
    if (batch.length === 0) {
      break;
    }
    const outcomes = await Promise.all(
      batch.map((row) =>
        makeRow(deps, { accountId: run.account_id, base, source, sourceName: run.source_name, row, token, logError: opts.logError }),
      ),
    );
    done += batch.length;
    if (outcomes.includes('lost')) {
      return 'left';
    }
    if (outcomes.includes('exhausted')) {
      // The package ended: the run stops here, and says which rows were not made.
      await markRestNotMade(deps.db, run.id, exhaustedError(), deps.clock.now());
      break;
    }
    await opts.afterBatch?.(done);
  }
  return (await finishBulk(deps, run)) ? 'finished' : 'left';
}

/**
 * Rows to claim next: no more than the pieces left, so that when the package runs out the rows
 * made are the first ones, in order, and the rows not made are the rest (at least one is claimed,
 * to meet the end and say so).
 */
async function batchSize(deps: Deps, accountId: string): Promise<number> {
  const documents = (await listPackages(deps.db, accountId)).filter((p) => p.kind === 'documents');
  if (documents.length === 0) {
    return BULK_BATCH; // no package of documents: no limit
  }
  return Math.max(1, Math.min(BULK_BATCH, remainingAt(documents, deps.clock.now())));
}

async function makeRow(
  deps: Deps,
  o: {
    accountId: string;
    base: Record<string, unknown>;
    source: string | undefined;
    sourceName: string | null;
    row: { id: string; index: number; data: unknown };
    token: string;
    logError?: (message: string) => void;
  },
): Promise<RowOutcome> {
  const { row, token } = o;
  try {
    const filled = rowPayload(o.base, row.data as Record<string, unknown>, row.index);
    if (o.source !== undefined) {
      filled.b64_doc = o.source;
      filled.name ??= o.sourceName ?? undefined;
    }
    const payload = checkInput(CreateDocumentBody, filled);
    await createDocument(deps, {
      accountId: o.accountId,
      payload,
      inCreation: async (trx, created) => {
        if (!(await recordCreated(trx, row.id, token, created.documentId, deps.clock.now()))) {
          throw new ClaimLost(); // rolls the document back: another worker makes this row
        }
      },
    });
    return 'created';
  } catch (err) {
    if (err instanceof ClaimLost) {
      return 'lost';
    }
    const ranOut = err instanceof AppError && err.code === 'PACKAGE_EXHAUSTED';
    if (!(err instanceof AppError)) {
      // As a single create answers a failure of the service: INTERNAL, the cause in the log only.
      o.logError?.(`bulk row ${row.index} failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
    }
    const recorded = await recordRefused(deps.db, row.id, token, ranOut ? 'not_made' : 'refused', rowError(err), deps.clock.now());
    return !recorded ? 'lost' : ranOut ? 'exhausted' : 'refused';
  }
}

function rowError(err: unknown): { code: string; message: string; details?: unknown } {
  if (err instanceof AppError) {
    return { code: err.code, message: err.message, ...(err.details === undefined ? {} : { details: err.details }) };
  }
  return { code: 'INTERNAL', message: 'internal error' };
}

function exhaustedError() {
  return rowError(exhausted('documents'));
}

/** Ends the run once no row is left to do, with its bulk_completed event in the same transaction. */
async function finishBulk(deps: Deps, run: { id: string; bulk_id: string; account_id: string; row_count: number }): Promise<boolean> {
  const counts = await countRows(deps.db, run.id);
  if (counts.pending + counts.claimed > 0) {
    return false; // another worker still has rows of it
  }
  const state = counts.not_made > 0 ? 'stopped' : 'completed';
  return deps.db.transaction().execute(async (trx) => {
    const end = { state, created: counts.created, refused: counts.refused + counts.not_made } as const;
    if (!(await finishRun(trx, run.id, end, deps.clock.now()))) {
      return false;
    }
    await emitEvent(trx, deps, {
      accountId: run.account_id,
      bulkRunId: run.id,
      kind: 'bulk_completed',
      meta: { rows: run.row_count, not_made: counts.not_made },
      dedupeKey: `bulk_completed:${run.bulk_id}`,
    });
    return true;
  });
}
