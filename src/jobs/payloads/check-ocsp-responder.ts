// Task `check_ocsp_responder`: the daily check of the OCSP responder certificate (handler:
// jobs/check-ocsp-responder.ts). Only the cron list of jobs/index.ts adds it.
import { type Static, Type } from '@sinclair/typebox';
import { defineJob } from '../job-payload.js';

// No fields of its own: graphile-worker's cron adds `_cron` ({ts, backfilled}), which is allowed.
export const CHECK_OCSP_RESPONDER = defineJob('check_ocsp_responder', Type.Object({}));

export type CheckOcspResponderPayload = Static<typeof CHECK_OCSP_RESPONDER.payload>;
