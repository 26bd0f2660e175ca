// Task `identity_evidence_sweep`: the daily deletion of identity evidence kept past its retention
// (handler: jobs/identity-evidence-sweep.ts). Only the cron list of jobs/index.ts adds it.
import { type Static, Type } from '@sinclair/typebox';
import { defineJob } from '../job-payload.js';

// No fields of its own: graphile-worker's cron adds `_cron` ({ts, backfilled}), which is allowed.
export const IDENTITY_EVIDENCE_SWEEP = defineJob('identity_evidence_sweep', Type.Object({}));

export type IdentityEvidenceSweepPayload = Static<typeof IDENTITY_EVIDENCE_SWEEP.payload>;
