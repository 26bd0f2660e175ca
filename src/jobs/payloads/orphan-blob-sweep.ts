// Task `orphan_blob_sweep`: the daily removal of blobs no row names (handler: jobs/orphan-blob-sweep.ts).
// Only the cron list of jobs/index.ts adds it.
import { type Static, Type } from '@sinclair/typebox';
import { defineJob } from '../job-payload.js';

// No fields of its own: graphile-worker's cron adds `_cron` ({ts, backfilled}), which is allowed.
export const ORPHAN_BLOB_SWEEP = defineJob('orphan_blob_sweep', Type.Object({}));

export type OrphanBlobSweepPayload = Static<typeof ORPHAN_BLOB_SWEEP.payload>;
