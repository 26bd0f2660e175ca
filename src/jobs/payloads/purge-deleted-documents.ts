// Task `purge_deleted_documents`: the daily purge of documents deleted longer ago than
// SELLO_DELETED_RETENTION_DAYS (handler: jobs/purge-deleted-documents.ts). Only the cron list of
// jobs/index.ts adds it; with the setting unset it does nothing.
import { type Static, Type } from '@sinclair/typebox';
import { defineJob } from '../job-payload.js';

// No fields of its own: graphile-worker's cron adds `_cron` ({ts, backfilled}), which is allowed.
export const PURGE_DELETED_DOCUMENTS = defineJob('purge_deleted_documents', Type.Object({}));

export type PurgeDeletedDocumentsPayload = Static<typeof PURGE_DELETED_DOCUMENTS.payload>;
