// Task `universal_sweep`: the daily look for universal renditions owed without a job (handler:
// jobs/universal-sweep.ts). Only the cron list of jobs/index.ts adds it.
import { type Static, Type } from '@sinclair/typebox';
import { defineJob } from '../job-payload.js';

// No fields of its own: graphile-worker's cron adds `_cron` ({ts, backfilled}), which is allowed.
export const UNIVERSAL_SWEEP = defineJob('universal_sweep', Type.Object({}));

export type UniversalSweepPayload = Static<typeof UNIVERSAL_SWEEP.payload>;
