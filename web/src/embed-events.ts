// Embedding mode, the page's side: inside the frame of a site its account listed, the page tells
// that site what happens (loaded, box reached, signed, rejected, error) with postMessage, in the
// versioned shape of src/client/embed.ts. The target origin is always the one site the service let
// frame the page (`?embed_origin=`, answered with `frame-ancestors <that origin>`), never `*`: a
// message to `*` would reach whatever page framed or navigated the frame, the document's ticket
// and the signer's steps with it.
import { SIGNER_EVENT_TYPE, SIGNER_EVENT_VERSION, type SignerEvent, type SignerEventName } from '../../src/client/embed.js';

/**
 * The origin of the site that frames this page, when it is the one the address names; else null
 * (not framed, no embed_origin, or a value that is not an origin). The server sent frame-ancestors
 * with that origin alone, so the browser would not have shown the page in any other site's frame;
 * where the browser lists the ancestors' origins (Chromium, Safari), the parent's is checked too.
 */
export function embeddingParent(win: Window = window): string | null {
  if (win.parent === win) {
    return null;
  }
  const asked = new URLSearchParams(win.location.search).get('embed_origin');
  let origin: string | null = null;
  try {
    origin = asked ? new URL(asked).origin : null;
  } catch {
    origin = null;
  }
  if (!origin || origin === 'null' || origin !== asked) {
    return null;
  }
  const ancestors = win.location.ancestorOrigins;
  if (ancestors && ancestors.length > 0 && ancestors[0] !== origin) {
    return null;
  }
  return origin;
}

/** What the page is about: a document, or a set (and, for a box of a set's page, the document it is on). */
export type EmbedSubject = { document_ticket: string; set_uuid?: undefined } | { set_uuid: string; document_ticket?: string };

/** Posts one event to the framing site; nothing when the page is not embedded. */
export function postSignerEvent(
  subject: EmbedSubject,
  event: SignerEventName,
  detail: Omit<SignerEvent, 'type' | 'version' | 'event' | 'document_ticket' | 'set_uuid'> = {},
): void {
  const target = embeddingParent();
  if (!target) {
    return;
  }
  const message: SignerEvent = {
    type: SIGNER_EVENT_TYPE,
    version: SIGNER_EVENT_VERSION,
    event,
    document_ticket: subject.document_ticket ?? null,
    set_uuid: subject.set_uuid ?? null,
    ...detail,
  };
  window.parent.postMessage(message, target);
}
