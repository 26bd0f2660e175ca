// Request signing exactly as decisions.md "Authentication" says: a GET or DELETE signs its request
// target (path plus query), a JSON POST the body bytes it sends, a multipart upload the Base64
// SHA-256 of its file (also sent as Content-SHA256). Errors come back as SelloApiError.
import { createHash, createHmac } from 'node:crypto';

export interface ClientOptions {
  baseUrl: string;
  webId: string;
  apiKey: string;
  /** The scheme word before the credentials (default "svc"). */
  scheme?: string;
  fetch?: typeof fetch;
}

/** An answer other than 2xx: its status and the `{error: {code, message, details}}` it carried. */
export class SelloApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string | undefined,
    message: string,
    readonly details?: unknown,
  ) {
    super(message);
    this.name = 'SelloApiError';
  }
}

export interface RawResponse {
  status: number;
  headers: Headers;
  text: string;
}

/** Signs and sends requests; SelloClient adds the typed operations. */
export class SignedTransport {
  private readonly base: string;
  private readonly doFetch: typeof fetch;

  constructor(private readonly opts: ClientOptions) {
    this.base = opts.baseUrl.replace(/\/+$/, '');
    this.doFetch = opts.fetch ?? fetch;
  }

  /** Authorization header value for a string to sign. */
  authorization(stringToSign: string | Buffer): string {
    const sig = createHmac('sha256', Buffer.from(this.opts.apiKey, 'utf8')).update(stringToSign).digest('base64');
    return `${this.opts.scheme ?? 'svc'} ${this.opts.webId}:${sig}`;
  }

  /**
   * Sends a signed request. `path` includes the query string, built once: that exact string is
   * signed and sent. A JSON body is serialized once, compactly, and those bytes are signed and sent.
   */
  async raw(method: string, path: string, body?: unknown, extraHeaders: Record<string, string> = {}): Promise<RawResponse> {
    const m = method.toUpperCase();
    const headers: Record<string, string> = { ...extraHeaders };
    let payload: string | undefined;
    if (m === 'GET' || m === 'DELETE') {
      headers.authorization = this.authorization(path);
      // A DELETE may carry a JSON body (a withdrawal's reason); its signature stays the request target.
      if (m === 'DELETE' && body !== undefined) {
        payload = typeof body === 'string' ? body : JSON.stringify(body);
        headers['content-type'] = 'application/json';
      }
    } else {
      payload = body === undefined ? '' : typeof body === 'string' ? body : JSON.stringify(body);
      headers['content-type'] = 'application/json';
      headers.authorization = this.authorization(payload);
    }
    const res = await this.doFetch(this.base + path, { method: m, headers, body: payload });
    return { status: res.status, headers: res.headers, text: await res.text() };
  }

  /** Sends a multipart request with one file; the signature covers Content-SHA256. */
  async rawUpload(path: string, file: Uint8Array, fields: Record<string, string> = {}, filename = 'document.pdf'): Promise<RawResponse> {
    const res = await this.sendUpload(path, file, fields, filename);
    return { status: res.status, headers: res.headers, text: await res.text() };
  }

  /** A signed GET whose answer is a file (application/pdf): its bytes, or the error it carried. */
  async getBytes(path: string): Promise<Buffer> {
    const res = await this.doFetch(this.base + path, { headers: { authorization: this.authorization(path) } });
    if (!res.ok) {
      return parse<never>({ status: res.status, headers: res.headers, text: await res.text() });
    }
    return Buffer.from(await res.arrayBuffer());
  }

  /** An upload whose answer is a file (application/pdf): its bytes, or the error it carried. */
  async uploadForBytes(path: string, file: Uint8Array, fields: Record<string, string> = {}): Promise<Buffer> {
    const res = await this.sendUpload(path, file, fields, 'document.pdf');
    if (!res.ok) {
      return parse<never>({ status: res.status, headers: res.headers, text: await res.text() });
    }
    return Buffer.from(await res.arrayBuffer());
  }

  private sendUpload(path: string, file: Uint8Array, fields: Record<string, string>, filename: string): Promise<Response> {
    const hash = createHash('sha256').update(file).digest('base64');
    const form = new FormData();
    for (const [k, v] of Object.entries(fields)) {
      form.append(k, v);
    }
    form.append('file', new Blob([new Uint8Array(file)], { type: 'application/pdf' }), filename);
    return this.doFetch(this.base + path, {
      method: 'POST',
      headers: { authorization: this.authorization(hash), 'content-sha256': hash },
      body: form,
    });
  }

  async request<T>(method: string, path: string, body?: unknown, extraHeaders?: Record<string, string>): Promise<T> {
    return parse<T>(await this.raw(method, path, body, extraHeaders));
  }

  async upload<T>(path: string, file: Uint8Array, fields: Record<string, string> = {}): Promise<T> {
    return parse<T>(await this.rawUpload(path, file, fields));
  }
}

function parse<T>(res: RawResponse): T {
  let body: unknown;
  try {
    body = res.text ? JSON.parse(res.text) : undefined;
  } catch {
    body = undefined;
  }
  if (res.status >= 200 && res.status < 300) {
    return body as T;
  }
  const err = (body as { error?: { code?: string; message?: string; details?: unknown } } | undefined)?.error;
  throw new SelloApiError(res.status, err?.code, err?.message ?? `HTTP ${res.status}`, err?.details);
}
