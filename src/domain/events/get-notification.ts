// POST /developers/webhook {notification_id}: exchanges a notification for the document it is
// about, as it is now (decisions.md "Events").
import { AppError } from '../errors.js';
import type { Deps } from '../deps.js';
import type { EventKind } from './event-types.js';
import { documentSigners, findNotification } from '../../store/notifications-repo.js';
import type { NotificationDocument } from '../../schemas/events.js';
import { archivalStates } from '../documents/archival-state.js';
import { fieldsOfDocument } from '../../store/signer-fields-repo.js';
import { fieldsBySigner } from '../signing/signer-fields.js';

export type { NotificationDocument };

export async function getNotificationDocument(
  deps: Pick<Deps, 'db' | 'blobs'>,
  opts: { accountId: string; notificationId: string },
): Promise<NotificationDocument> {
  const id = opts.notificationId;
  const n = await findNotification(deps.db, opts.accountId, id);
  if (!n) {
    // Another account's notification is not found either (decisions.md "Identifiers").
    throw new AppError('NOTIFICATION_NOT_FOUND', `no notification ${id}`);
  }
  const notification: NotificationDocument['notification'] = {
    notification_id: n.notification_id,
    notification_type: n.kind as EventKind,
    document_ticket: n.document_ticket,
    document_set: n.set_uuid,
    created_at: n.created_at.toISOString(),
    meta: n.meta ?? {},
  };
  if (n.document_id === null || n.document_ticket === null) {
    return { notification, document: null };
  }
  if (n.document_status === 'deleted') {
    // As for downloads: a deleted document's bytes are not served until it is restored.
    throw new AppError('DOCUMENT_DELETED', `document ${n.document_ticket} of notification ${id} is deleted; restore it to read it`, {
      document_ticket: n.document_ticket,
    });
  }
  const hash = n.original_sha256!;
  const [signers, fields, bytes, archival] = await Promise.all([
    documentSigners(deps.db, n.document_id),
    fieldsOfDocument(deps.db, n.document_id),
    deps.blobs.get(hash),
    archivalStates(deps, [n.document_id]),
  ]);
  const filled = fieldsBySigner(fields);
  return {
    notification,
    document: {
      document_ticket: n.document_ticket,
      name: n.document_name!,
      status: n.document_status!,
      signers: signers.map((s) => ({ ...s, signer_fields: filled.get(s.signer_id) ?? [] })),
      original: bytes.toString('base64'),
      hash,
      ...archival.get(n.document_id)!,
    },
  };
}
