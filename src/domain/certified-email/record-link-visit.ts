// The two public links of a certified email (no HMAC: the random token is the credential, stored
// hashed): the open image, whose first load records opened_at, and the document link, whose first
// download records downloaded_at and serves the exact PDF that was sent. Later visits answer the
// same and change nothing: the evidence is of the first one.
import { AppError } from '../errors.js';
import type { Deps } from '../deps.js';
import { appendHistory } from '../history/append-history.js';
import { hashToken } from '../ids.js';
import { findByDownloadToken, findByOpenToken, recordDownload, recordOpen } from '../../store/certified-email-repo.js';

const TOKEN = /^[A-Za-z0-9_-]{43}$/;

/** A transparent 1×1 GIF: the smallest image every email client shows. */
export const PIXEL_GIF = Buffer.from('R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7', 'base64');

export interface Visitor {
  ip: string | null;
  userAgent: string | null;
}

export async function recordCertifiedOpen(deps: Pick<Deps, 'db' | 'clock'>, token: string, who: Visitor): Promise<void> {
  const c = TOKEN.test(token) ? await findByOpenToken(deps.db, hashToken(token)) : undefined;
  if (!c || c.document_status === 'deleted') {
    throw new AppError('CERTIFIED_EMAIL_NOT_FOUND', 'this image belongs to no certified email');
  }
  if (c.opened_at) {
    return;
  }
  const at = deps.clock.now();
  await deps.db.transaction().execute(async (trx) => {
    if (await recordOpen(trx, c.id, { at, ...clip(who) })) {
      await appendHistory(trx, {
        documentId: c.document_id,
        at,
        action: 'certified_email_opened',
        actor: 'public',
        ip: who.ip,
        details: { recipient: c.recipient, seen_through: 'tracking_image', user_agent: clip(who).userAgent },
      });
    }
  });
}

export async function downloadCertifiedDocument(
  deps: Pick<Deps, 'db' | 'clock' | 'blobs'>,
  token: string,
  who: Visitor,
): Promise<{ name: string; pdf: Buffer }> {
  const c = TOKEN.test(token) ? await findByDownloadToken(deps.db, hashToken(token)) : undefined;
  if (!c?.document_sha256 || c.document_status === 'deleted') {
    throw new AppError('CERTIFIED_EMAIL_NOT_FOUND', 'this download link is not valid');
  }
  const pdf = await deps.blobs.get(c.document_sha256);
  if (!c.downloaded_at) {
    const at = deps.clock.now();
    await deps.db.transaction().execute(async (trx) => {
      if (await recordDownload(trx, c.id, { at, ...clip(who) })) {
        await appendHistory(trx, {
          documentId: c.document_id,
          at,
          action: 'certified_email_downloaded',
          actor: 'public',
          ip: who.ip,
          details: { recipient: c.recipient, document_sha256: c.document_sha256, user_agent: clip(who).userAgent },
        });
      }
    });
  }
  return { name: /\.pdf$/i.test(c.document_name) ? c.document_name : `${c.document_name}.pdf`, pdf };
}

/** A user agent is the visitor's to write: kept, but bounded. */
function clip(who: Visitor): Visitor {
  return { ip: who.ip, userAgent: who.userAgent ? who.userAgent.slice(0, 300) : null };
}
