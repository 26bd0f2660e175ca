// Embedding the signer page in the integrator's own site (browser code, no dependency): mountSigner
// puts a signer link in an iframe and hands the page's events to a callback. The account must list
// the site's origin (`frame_origins`, POST /api/account/brand); the page is then asked for with
// `?embed_origin=<this site's origin>` and the service lets that origin, and only it, frame it.
// The page posts its events to that origin alone, never to `*`; this side drops any message whose
// `event.origin` is not the service's, or that does not come from the frame it made.

/** `type` of every message the signer page posts to the site that frames it. */
export const SIGNER_EVENT_TYPE = 'sello:signer';
/** The version of the event shape; a change that breaks a reader gets a new one. */
export const SIGNER_EVENT_VERSION = 1;

/** What happened on the signer page. */
export type SignerEventName = 'loaded' | 'box_reached' | 'signed' | 'rejected' | 'error';

/** One message from the signer page (version 1; docs/api.md, "Embedding the signer page"). */
export interface SignerEvent {
  type: typeof SIGNER_EVENT_TYPE;
  version: typeof SIGNER_EVENT_VERSION;
  event: SignerEventName;
  /** The document of a /sign/{token} page; on a set's page null, but in box_reached the document of the box. */
  document_ticket: string | null;
  /** The set of a /sign/set/{token} page; null on a document's page. */
  set_uuid: string | null;
  /** loaded: the signer's state as the page shows it. */
  signer_status?: string;
  /** box_reached: which of the signer's boxes came into view (0-based, reading order) and how many there are (on a set's page, across the set). */
  box_index?: number;
  box_count?: number;
  /** signed, rejected: the document's (or set's) state afterwards. */
  status?: string;
  /** signed: when, ISO 8601. */
  signed_at?: string | null;
  /** error: the API's error code and message, as the page shows them. */
  code?: string;
  message?: string;
}

export interface MountSignerOptions {
  /** The signer's link as the API gave it (`signer_url`), for a document or a set. */
  url: string;
  /** Where the frame goes; whatever it held is replaced. */
  container: HTMLElement;
  /** Called for each event of the page, in the order the page posted them. */
  onEvent?: (event: SignerEvent) => void;
  /** The frame's accessible name (screen readers announce it); "Signer page" by default. */
  title?: string;
}

export interface MountedSigner {
  iframe: HTMLIFrameElement;
  /** Removes the frame and stops listening. */
  unmount(): void;
}

/** Puts the signer page in an iframe inside `container` and reports its events to `onEvent`. */
export function mountSigner(opts: MountSignerOptions): MountedSigner {
  const url = new URL(opts.url, window.location.href);
  url.searchParams.set('embed_origin', window.location.origin);
  const serviceOrigin = url.origin;
  const iframe = document.createElement('iframe');
  iframe.src = url.href;
  iframe.title = opts.title ?? 'Signer page';
  // The page asks for a camera for identity checks and opens the signer's own key file for e.firma.
  iframe.allow = 'camera';
  iframe.style.border = '0';
  iframe.style.width = '100%';
  iframe.style.height = '100%';
  const listener = (e: MessageEvent) => {
    // Another window of any origin can post to this one: only the service's page, in this frame, counts.
    if (e.origin !== serviceOrigin || e.source !== iframe.contentWindow || !isSignerEvent(e.data)) {
      return;
    }
    opts.onEvent?.(e.data);
  };
  window.addEventListener('message', listener);
  opts.container.replaceChildren(iframe);
  return {
    iframe,
    unmount() {
      window.removeEventListener('message', listener);
      iframe.remove();
    },
  };
}

/** Whether a message is a signer page event of a version this code reads. */
export function isSignerEvent(data: unknown): data is SignerEvent {
  const d = data as Partial<SignerEvent> | null;
  return (
    typeof d === 'object' && d !== null && d.type === SIGNER_EVENT_TYPE && d.version === SIGNER_EVENT_VERSION && typeof d.event === 'string'
  );
}
