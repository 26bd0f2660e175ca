// POST /api/bulk: starts a bulk run (decisions.md "Bulk send"). What can be judged once is judged
// here, before anything is stored: the origin (exactly one), the rows (objects, within the limit),
// the template's existence; a b64_doc or url_doc is read once and kept as one blob for every row.
// The run, its rows and its job commit together; the job makes the documents (jobs/bulk-run.ts).
import { createHash } from 'node:crypto';
import { AppError, invalid } from '../errors.js';
import type { Deps } from '../deps.js';
import { newPublicId } from '../ids.js';
import { decodeBase64Pdf, fetchPdf } from '../documents/resolve-pdf-origin.js';
import { findRunByKey, insertRun } from '../../store/bulk-repo.js';
import { findTemplate } from '../../store/templates-repo.js';
import { addBulkRunJob } from '../../jobs/payloads/bulk-run.js';
import type { BulkStarted, CreateBulkInput } from '../../schemas/bulk.js';
import { blobSharedLockSql, ensureBlob } from '../../store/blob-fence.js';

const ORIGINS = ['b64_doc', 'url_doc', 'template'] as const;

export async function createBulk(
  deps: Deps,
  opts: { accountId: string; idempotencyKey: string; body: CreateBulkInput & Record<string, unknown> },
): Promise<BulkStarted> {
  const { body } = opts;
  // The body as parsed, in its own key order: the same request sent again hashes the same.
  const bodySha256 = createHash('sha256').update(JSON.stringify(body)).digest('hex');
  const existing = await findRunByKey(deps.db, opts.accountId, opts.idempotencyKey);
  if (existing) {
    return answerExisting(existing, bodySha256);
  }
  checkRows(body.rows, deps.config.limits.bulkRows);
  const origin = originOf(body);
  const { rows, b64_doc, url_doc, ...base } = body;
  let sourceSha256: string | null = null;
  let sourceName: string | null = null;
  let sourceBytes: Uint8Array | undefined;
  if (origin === 'template') {
    await requireTemplate(deps, opts.accountId, base.template);
  } else {
    // Read once for every row: a URL is fetched once, not a thousand times.
    const source =
      url_doc !== undefined
        ? await fetchPdf(deps, url_doc)
        : { bytes: decodeBase64Pdf(b64_doc ?? '', deps.config.limits.documentBytes), name: undefined };
    sourceSha256 = await deps.blobs.put(source.bytes);
    sourceBytes = source.bytes;
    sourceName = source.name ?? null;
  }

  const bulkId = newPublicId();
  const inserted = await deps.db.transaction().execute(async (trx) => {
    // The run's row names the file: under its blob lock, with the bytes put back if a sweep took them.
    if (sourceSha256 !== null && sourceBytes !== undefined) {
      await blobSharedLockSql(sourceSha256).execute(trx);
      await ensureBlob(deps.blobs, sourceSha256, sourceBytes);
    }
    const runId = await insertRun(trx, {
      bulkId,
      accountId: opts.accountId,
      idempotencyKey: opts.idempotencyKey,
      bodySha256,
      base,
      sourceSha256,
      sourceName,
      rows,
      at: deps.clock.now(),
    });
    if (runId !== undefined) {
      await addBulkRunJob(trx, { runId });
    }
    return runId !== undefined;
  });
  if (!inserted) {
    // The same key arrived twice at once: the other request made the run.
    const other = await findRunByKey(deps.db, opts.accountId, opts.idempotencyKey);
    return answerExisting(other!, bodySha256);
  }
  return { bulk_id: bulkId, state: 'running', rows: rows.length };
}

function answerExisting(run: { bulk_id: string; body_sha256: string; state: BulkStarted['state']; row_count: number }, bodySha256: string) {
  if (run.body_sha256 !== bodySha256) {
    throw new AppError('IDEMPOTENCY_KEY_REUSED', `Idempotency-Key: already used for bulk run ${run.bulk_id} with another body`, {
      field: 'Idempotency-Key',
      bulk_id: run.bulk_id,
    });
  }
  return { bulk_id: run.bulk_id, state: run.state, rows: run.row_count };
}

/** 1 to `limit` rows, each an object (its placeholders' values). */
function checkRows(rows: unknown[], limit: number): asserts rows is Record<string, unknown>[] {
  if (rows.length === 0) {
    throw invalid('rows', 'at least one row is required');
  }
  if (rows.length > limit) {
    throw invalid('rows', `at most ${limit} rows per run; got ${rows.length}`, { limit });
  }
  rows.forEach((row, i) => {
    if (typeof row !== 'object' || row === null || Array.isArray(row)) {
      throw invalid(`rows[${i}]`, 'expected an object of the row’s values');
    }
  });
}

/** Exactly one of b64_doc, url_doc, template: the error of a single create. */
function originOf(body: CreateBulkInput): (typeof ORIGINS)[number] {
  const origins = ORIGINS.filter((k) => body[k] !== undefined);
  if (origins.length !== 1) {
    throw new AppError(
      'INVALID_ORIGIN',
      origins.length === 0
        ? 'one PDF origin is required: b64_doc, url_doc or template'
        : `only one PDF origin may be sent; got ${origins.join(' and ')}`,
      { field: origins.length ? origins.join(',') : 'b64_doc' },
    );
  }
  return origins[0];
}

/** A missing template would refuse every row alike: it is refused once, as a single create would. */
async function requireTemplate(deps: Deps, accountId: string, template: unknown): Promise<void> {
  const title = (template as { title?: unknown } | null)?.title;
  if (typeof title !== 'string' || title.includes('{{')) {
    return; // a shape the rows' own check answers, or a title filled per row
  }
  if (!(await findTemplate(deps.db, accountId, title.trim()))) {
    throw new AppError('TEMPLATE_NOT_FOUND', `template.title: no template named ${JSON.stringify(title)}`, { field: 'template.title' });
  }
}
