// Turns the PDF origin of a create payload (b64_doc or url_doc) into bytes and a file name.
import { decodeBase64, decodeBase64Ascii } from '../base64.js';
import { AppError, invalid } from '../errors.js';
import type { Deps } from '../deps.js';
import { UrlGuardError } from '../../net/url-guard.js';

export interface PdfSource {
  origin: 'b64_doc' | 'url_doc' | 'template';
  bytes: Buffer;
  name: string;
}

/** b64_doc decoded: from its text, or from the bytes of its text left in the request body (same result, same errors). */
export function decodeBase64Pdf(value: string | Buffer, maxBytes: number): Buffer {
  const opts = { field: 'b64_doc', maxBytes, invalidCode: 'PDF_INVALID' as const, shared: true };
  return typeof value === 'string' ? decodeBase64(value, opts) : decodeBase64Ascii(value, opts);
}

/** The PDF at `url_doc.url`, through the URL guard; the schema checked the shape of url_doc. */
export async function fetchPdf(deps: Pick<Deps, 'config' | 'fetchUrl'>, urlDoc: { url: string; name?: string }): Promise<PdfSource> {
  const { url, name } = urlDoc;
  if (url.length === 0 || url.length > 4096) {
    throw invalid('url_doc.url', 'required: an http(s) URL of at most 4096 characters');
  }
  const limit = deps.config.limits.documentBytes;
  let res: Awaited<ReturnType<typeof deps.fetchUrl>>;
  try {
    res = await deps.fetchUrl(url, {
      maxBytes: limit,
      totalTimeoutMs: deps.config.urlFetchTimeoutMs,
      allowPrivate: deps.config.allowPrivateUrls,
    });
  } catch (err) {
    if (!(err instanceof UrlGuardError)) {
      throw err;
    }
    switch (err.reason) {
      case 'TOO_LARGE':
        throw new AppError('DOCUMENT_TOO_LARGE', `url_doc.url: the document is larger than the limit of ${mb(limit)}`);
      case 'TIMEOUT':
      case 'NETWORK':
        throw new AppError('URL_FETCH_FAILED', `url_doc.url: could not be fetched (${err.message})`, {
          field: 'url_doc.url',
          reason: err.reason,
        });
      default:
        throw new AppError('URL_NOT_ALLOWED', `url_doc.url: refused (${err.message})`, {
          field: 'url_doc.url',
          reason: err.reason,
        });
    }
  }
  if (res.status < 200 || res.status > 299) {
    throw new AppError('URL_FETCH_FAILED', `url_doc.url: the server answered ${res.status}`, {
      field: 'url_doc.url',
      status: res.status,
    });
  }
  return { origin: 'url_doc', bytes: res.body, name: fileName(name, new URL(res.finalUrl).pathname) };
}

/** A download name: the given one, else the last path segment of the URL, else document.pdf. */
export function fileName(given: string | undefined, path = ''): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are exactly what this removes
  const base = (given?.trim() || safeDecode(path.split('/').pop() ?? '') || 'document').replace(/[\\/\u0000-\u001f]/g, '_');
  const clipped = base.slice(0, 200);
  return /\.pdf$/i.test(clipped) ? clipped : `${clipped}.pdf`;
}

function mb(bytes: number) {
  return `${Math.round(bytes / (1024 * 1024))} MB`;
}

function safeDecode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment; // malformed percent-encoding: keep it as it came
  }
}
