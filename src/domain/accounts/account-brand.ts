// The sender's brand and the embedding mode of an account: what its signers see (the name beside
// its logo, the primary colour of the header and buttons, Sello's name or not), what its emails say
// of who sends them (the From name and the Reply-To), and which sites may show its signer pages in a
// frame. Checked here once for the CLI, the account API and the panel alike.
import { isEmail } from '../documents/authorities.js';
import { invalid } from '../errors.js';

/** What a brand change may carry; null clears a field, undefined leaves it as it is. */
export interface BrandChange {
  /** The origins allowed to frame the account's signer pages; [] allows none (the default). */
  frameOrigins?: string[];
  brandName?: string | null;
  /** #rrggbb, the background of the header and buttons, white text on it. */
  brandColour?: string | null;
  emailSenderName?: string | null;
  emailReplyTo?: string | null;
  hideSello?: boolean;
}

/** Largest logo accepted: a small PNG, sent with every signer page's data. */
export const MAX_LOGO_BYTES = 100 * 1024;
const MAX_LOGO_SIDE = 2000;
const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/** At most this many origins: an account embeds its signer pages in a few sites of its own, not in any. */
export const MAX_FRAME_ORIGINS = 20;
/** WCAG 2.x, success criterion 1.4.3: normal text needs 4.5:1 against its background. */
export const MIN_CONTRAST = 4.5;

const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);

/** Whether the change carries anything at all. */
export function hasBrandChange(c: BrandChange): boolean {
  return Object.values(c).some((v) => v !== undefined);
}

/** The change checked and normalised (colour in lower case, texts trimmed), or INVALID_INPUT naming the field. */
export function checkBrandChange(c: BrandChange): BrandChange {
  const out: BrandChange = {};
  if (c.frameOrigins !== undefined) {
    if (!Array.isArray(c.frameOrigins) || c.frameOrigins.length > MAX_FRAME_ORIGINS) {
      throw invalid('frame_origins', `expected a list of at most ${MAX_FRAME_ORIGINS} origins`);
    }
    out.frameOrigins = [...new Set(c.frameOrigins.map((o, i) => checkOrigin(o, `frame_origins[${i}]`)))];
  }
  if (c.brandName !== undefined) {
    out.brandName = c.brandName === null ? null : checkText(c.brandName, 'brand_name', 100);
  }
  if (c.brandColour !== undefined) {
    out.brandColour = c.brandColour === null ? null : checkColour(c.brandColour);
  }
  if (c.emailSenderName !== undefined) {
    out.emailSenderName = c.emailSenderName === null ? null : checkText(c.emailSenderName, 'email_sender_name', 100);
  }
  if (c.emailReplyTo !== undefined) {
    if (c.emailReplyTo === null) {
      out.emailReplyTo = null;
    } else {
      const address = c.emailReplyTo.trim();
      // isEmail refuses spaces and line breaks: nothing that could add a header to the message.
      if (address.length > 254 || !isEmail(address)) {
        throw invalid('email_reply_to', 'expected an email address');
      }
      out.emailReplyTo = address;
    }
  }
  if (c.hideSello !== undefined) {
    if (typeof c.hideSello !== 'boolean') {
      throw invalid('hide_sello', 'expected true or false');
    }
    out.hideSello = c.hideSello;
  }
  return out;
}

/**
 * An origin as browsers serialise it (RFC 6454 §6.1) and CSP frame-ancestors matches it: scheme,
 * host and port only. https only, but http on loopback, where a developer runs the site that embeds.
 * Anything looser (a path, a wildcard, `*`, a bare host) would let more sites frame the signer page
 * than the account named.
 */
function checkOrigin(value: unknown, field: string): string {
  const text = typeof value === 'string' ? value.trim() : '';
  let url: URL | undefined;
  try {
    url = new URL(text);
  } catch {
    url = undefined;
  }
  // The serialised origin must be what was given: no path, query, user, trailing slash or default port.
  // The host a name or an address: WHATWG URL keeps `*` in a host, which CSP would read as a wildcard.
  if (
    !url ||
    url.origin === 'null' ||
    url.origin !== text.toLowerCase() ||
    !/^([a-z0-9-]+\.)*[a-z0-9-]+$|^\[[0-9a-f:.]+\]$/.test(url.hostname)
  ) {
    throw invalid(field, 'expected an origin such as https://app.example.com or https://app.example.com:8443, without path or slash');
  }
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && LOOPBACK.has(url.hostname))) {
    throw invalid(field, 'expected https (http only for localhost, 127.0.0.1 or [::1])');
  }
  return url.origin;
}

function checkText(value: unknown, field: string, max: number): string {
  const text = typeof value === 'string' ? value.trim() : '';
  // Control characters (a line break above all) would end an email header early and start another.
  // biome-ignore lint/suspicious/noControlCharactersInRegex: the control characters are what is refused
  if (!text || text.length > max || /[\u0000-\u001f\u007f]/.test(text)) {
    throw invalid(field, `expected 1 to ${max} characters, no line breaks`);
  }
  return text;
}

function checkColour(value: unknown): string {
  const text = typeof value === 'string' ? value.trim().toLowerCase() : '';
  if (!/^#[0-9a-f]{6}$/.test(text)) {
    throw invalid('brand_colour', 'expected a colour as #rrggbb');
  }
  const ratio = contrastWithWhite(text);
  if (ratio < MIN_CONTRAST) {
    throw invalid(
      'brand_colour',
      `white text on ${text} has a contrast of ${ratio.toFixed(2)}:1; at least ${MIN_CONTRAST}:1 is needed (WCAG 1.4.3): choose a darker colour`,
      { contrast: Number(ratio.toFixed(2)) },
    );
  }
  return text;
}

/** (L_white + 0.05) / (L + 0.05), L the relative luminance of WCAG 2.x (sRGB, linearised). */
export function contrastWithWhite(hex: string): number {
  const [r, g, b] = [1, 3, 5].map((i) => {
    const c = Number.parseInt(hex.slice(i, i + 2), 16) / 255;
    return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  });
  const luminance = 0.2126 * r + 0.7152 * g + 0.0722 * b;
  return 1.05 / (luminance + 0.05);
}

/** A PNG (signature, then IHDR as the first chunk, RFC 2083 §3.2) of sane size. */
export function checkLogo(png: Buffer): Buffer {
  if (png.length > MAX_LOGO_BYTES) {
    throw invalid('logo', `at most ${MAX_LOGO_BYTES} bytes; this one has ${png.length}`);
  }
  if (png.length < 33 || !png.subarray(0, 8).equals(PNG) || png.toString('latin1', 12, 16) !== 'IHDR') {
    throw invalid('logo', 'expected a PNG image');
  }
  const width = png.readUInt32BE(16);
  const height = png.readUInt32BE(20);
  if (width === 0 || height === 0 || width > MAX_LOGO_SIDE || height > MAX_LOGO_SIDE) {
    throw invalid('logo', `expected at most ${MAX_LOGO_SIDE}×${MAX_LOGO_SIDE} pixels; this one is ${width}×${height}`);
  }
  return png;
}
