// The TypeScript client of the Sello API: request signing exactly as the specification says, and
// typed methods for the operations. Used by the tests, the `sello api` command and integrators.
import { createHash, createHmac } from 'node:crypto';

export interface ClientOptions {
  baseUrl: string;
  webId: string;
  apiKey: string;
  /** The scheme word before the credentials (default "svc"). */
  scheme?: string;
  fetch?: typeof fetch;
}

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

export type Rect = { lx: number; ly: number; tx: number; ty: number };
export interface StickerInput {
  authority: 'EMAIL_LINK' | 'EMAIL' | 'SMS' | 'WHATSAPP' | 'SAT';
  data: string;
  page: number;
  rect: Rect;
  name?: string;
  email?: string;
}
export interface CreateDocumentInput {
  b64_doc?: string;
  url_doc?: { url: string; name?: string };
  template?: { title: string; name?: string };
  fields?: { id: string; value: string | number | boolean }[];
  /** Rows for html template tables: [[{id, value}]] or [{column: value}]. */
  tables?: { id: string; rows: ({ id: string; value: string }[] | Record<string, string>)[] }[];
  name?: string;
  stickers?: StickerInput[];
  document_set?: string;
  workflow?: Record<string, unknown>;
  [key: string]: unknown;
}
export interface CreatedDocument {
  document_ticket: string;
  document_url: string;
  document_flow: boolean;
  sticker_count: number;
  stickers: {
    sticker_id: string;
    signer_id: string;
    sticker_index: number;
    sticker_authority: string;
    sticker_data: string;
    sticker_email: string | null;
    sticker_page: number;
    sticker_coordinates: Rect;
    signer_url: string;
  }[];
  warnings: string[];
}
export interface DocumentList {
  documents: {
    document_ticket: string;
    name: string;
    status: string;
    created_at: string;
    signers: { signer_id: string; name: string | null; email: string | null; authority: string; data: string; status: string }[];
    signed_count: number;
  }[];
  nextToken?: string;
}
export interface DocumentFile {
  bytes: Buffer;
  hash: string;
  name: string;
}

/** A box in PDF points from the top-left corner of the page's CropBox (unrotated). */
export interface ReportBox {
  page: number;
  left: number;
  top: number;
  width: number;
  height: number;
}
/** GET /api/report/{ticket}: every signature of the current original. */
export interface SignatureReport {
  InkSignatures: (ReportBox & { campoFirma: string; box: number })[];
  firmas: (ReportBox & {
    downstream: boolean;
    campoFirma: string;
    signatureType: string;
    validSignature: boolean;
    coversDocument: boolean;
    totalRevisions: number;
    revision: number;
    signDate: string;
    certType: 'service-issued' | 'external';
    signCertificateSerial: string;
    box: number;
    email: string;
    ipAddress: string;
    timestampAuthority: string;
    downstreamData: { authority: string; dataType: string; subject: string };
    ocsp: { signatureValid: boolean; certStatus: 'good' | 'revoked' | 'unknown'; signer: string };
    certificados: { commonName: string; email: string; serial: string; signatureAlgorithm: string; issuerCommonName: string }[];
  })[];
}

/** GET /api/v1/document/{ticket}/history/json: the history, oldest first, and the check of its hash chain. */
export interface DocumentHistory {
  document_ticket: string;
  entries: {
    seq: number;
    at: string;
    action: string;
    /** 'account', 'signer:<signer_id>' or 'system'. */
    actor: string;
    ip: string | null;
    details: Record<string, unknown>;
    prev_hash: string;
    hash: string;
  }[];
  chain: { valid: boolean; entries: number; first_broken_seq: number | null };
}

/** The event kinds a subscription may name (decisions.md "Events"). */
export type EventKind =
  | 'original_signed'
  | 'universal_signed'
  | 'document_completed'
  | 'document_rejected'
  | 'workflow_expired'
  | 'whatsapp_error'
  | 'sms_error'
  | 'email_error'
  | 'original_nom151_stamped'
  | 'universal_nom151_stamped'
  | 'identity_verification_failed'
  | 'identity_verification_passed';
export interface NotificationDocument {
  notification: {
    notification_id: string;
    notification_type: EventKind;
    document_ticket: string | null;
    document_set: string | null;
    created_at: string;
    meta: Record<string, unknown>;
  };
  document: {
    document_ticket: string;
    name: string;
    status: string;
    signers: { signer_id: string; name: string | null; email: string | null; authority: string; data: string; status: string }[];
    /** Base64 of the current original. */
    original: string;
    hash: string;
  } | null;
}
export interface Subscription {
  id: string;
  event: EventKind;
  url: string;
  status: 'active' | 'disabled';
  disabled_reason: string | null;
  disabled_at: string | null;
  created_at: string;
}

export interface WorkflowUpdate {
  status: 'success';
  document_ticket: string;
  document_status: string;
  workflow: Record<string, unknown>;
  expires_at: string | null;
  ignored_keys: string[];
}

export interface SignerUpdate {
  status: 'success';
  signer: {
    signer_id: string;
    authority: string;
    data: string;
    name: string | null;
    email: string | null;
    status: string;
    signer_url: string;
  };
  invited: boolean;
}

/** GET /api/documentset/{uuid}. */
export interface DocumentSet {
  uuid: string;
  name: string;
  status: 'OPEN' | 'CLOSED' | 'COMPLETED' | 'REJECTED' | 'EXPIRED' | 'CANCELLED';
  metadata: unknown;
  created_at: string;
  closed_at: string | null;
  expires_at: string | null;
  workflow: Record<string, unknown> | null;
  signers: SetSigner[];
  documents: {
    document_ticket: string;
    name: string;
    status: string;
    created_at: string;
    signers: { signer_id: string; authority: string; data: string; name: string | null; status: string }[];
  }[];
}
/** A signer of a document set (preloaded, or found on its documents when it closed). */
export interface SetSigner {
  signer_id: string;
  authority: string;
  data: string;
  name: string | null;
  email: string | null;
  status?: string;
  position: number;
}
/** POST /api/documentset/close. */
export interface ClosedSet {
  status: 'success';
  uuid: string;
  set_status: 'CLOSED';
  expires_at: string;
  signers: { signer_id: string; authority: string; data: string; name: string | null; signer_url: string }[];
  ignored_keys: string[];
}
/** POST /api/{uuid}/workflowSet. */
export interface SetWorkflowUpdate {
  status: 'success';
  set_status: string;
  expires_at: string | null;
  invitations_sent: number;
  ignored_keys: string[];
}

export class SelloClient {
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
  async raw(method: string, path: string, body?: unknown): Promise<RawResponse> {
    const m = method.toUpperCase();
    const headers: Record<string, string> = {};
    let payload: string | undefined;
    if (m === 'GET' || m === 'DELETE') {
      headers.authorization = this.authorization(path);
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
    const hash = createHash('sha256').update(file).digest('base64');
    const form = new FormData();
    for (const [k, v] of Object.entries(fields)) {
      form.append(k, v);
    }
    form.append('file', new Blob([new Uint8Array(file)], { type: 'application/pdf' }), filename);
    const res = await this.doFetch(this.base + path, {
      method: 'POST',
      headers: { authorization: this.authorization(hash), 'content-sha256': hash },
      body: form,
    });
    return { status: res.status, headers: res.headers, text: await res.text() };
  }

  async request<T>(method: string, path: string, body?: unknown): Promise<T> {
    return parse<T>(await this.raw(method, path, body));
  }

  createDocument(input: CreateDocumentInput): Promise<CreatedDocument> {
    return this.request('POST', '/developers/json', input);
  }

  listDocuments(q: { from?: number; to?: number; limit?: number; nextToken?: string } = {}): Promise<DocumentList> {
    const params = new URLSearchParams();
    for (const [k, v] of Object.entries(q)) {
      if (v !== undefined) {
        params.set(k, String(v));
      }
    }
    const qs = params.toString();
    return this.request('GET', `/api/document${qs ? `?${qs}` : ''}`);
  }

  async downloadDocument(type: 'original' | 'universal' | 'source', ticket: string): Promise<DocumentFile> {
    const r = await this.request<Record<string, string>>('GET', `/api/document/${encodeURIComponent(type)}/${encodeURIComponent(ticket)}`);
    return { bytes: Buffer.from(r[type], 'base64'), hash: r.hash, name: r.name };
  }

  /** The signature report: each signature's position, validity, certificates, revocation and time-stamp. */
  signatureReport(ticket: string): Promise<SignatureReport> {
    return this.request('GET', `/api/report/${encodeURIComponent(ticket)}`);
  }

  /** The document's history: every state change, invitation, view, signature and edit, hash-chained. */
  documentHistory(ticket: string): Promise<DocumentHistory> {
    return this.request('GET', `/api/v1/document/${encodeURIComponent(ticket)}/history/json`);
  }

  deleteDocument(ticket: string): Promise<{ document_ticket: string; status: string }> {
    return this.request('POST', '/developers/docs', { ticket, action: 'delete' });
  }

  restoreDocument(ticket: string): Promise<{ document_ticket: string; status: string }> {
    return this.request('POST', '/developers/docs', { ticket, action: 'restore' });
  }

  /** Sets, changes or cancels the workflow of a standalone document. */
  updateWorkflow(ticket: string, workflow: Record<string, unknown>): Promise<WorkflowUpdate> {
    return this.request('POST', `/api/${encodeURIComponent(ticket)}/workflow`, workflow);
  }

  /** Corrects a signer who has not signed; the response carries the new signing link. */
  updateSigner(
    ticket: string,
    signerId: string,
    changes: { authority?: string; data?: string; name?: string | null; email?: string | null },
  ): Promise<SignerUpdate> {
    return this.request('POST', `/api/${encodeURIComponent(ticket)}/signer/${encodeURIComponent(signerId)}/update`, changes);
  }

  createDocumentSet(
    input: { name?: string; metadata?: Record<string, unknown> } = {},
  ): Promise<{ uuid: string; status: string; name: string }> {
    return this.request('POST', '/api/documentset', input);
  }

  getDocumentSet(uuid: string): Promise<DocumentSet> {
    return this.request('GET', `/api/documentset/${encodeURIComponent(uuid)}`);
  }

  /** Preloads a signer for the whole set while it is OPEN; the same (authority, data) returns the existing one. */
  addSetSigner(
    uuid: string,
    signer: { authority: StickerInput['authority']; data: string; name?: string; email?: string },
  ): Promise<SetSigner> {
    return this.request('POST', `/api/documentset/${encodeURIComponent(uuid)}/signer`, signer);
  }

  removeSetSigner(uuid: string, signerId: string): Promise<{ status: 'deleted'; signer_id: string }> {
    return this.request('DELETE', `/api/documentset/${encodeURIComponent(uuid)}/signer/${encodeURIComponent(signerId)}`);
  }

  /** Closes an OPEN set with its workflow (snake_case keys): the flow starts and the invitations go out. */
  closeDocumentSet(uuid: string, workflow?: Record<string, unknown>): Promise<ClosedSet> {
    return this.request('POST', '/api/documentset/close', workflow === undefined ? { documentSet: uuid } : { documentSet: uuid, workflow });
  }

  /** Adjusts or cancels a closed set's flow; every call restarts it (the invitation goes again). */
  updateSetWorkflow(uuid: string, workflow: Record<string, unknown> = {}): Promise<SetWorkflowUpdate> {
    return this.request('POST', `/api/${encodeURIComponent(uuid)}/workflowSet`, workflow);
  }

  /** POST /developers/webhook: the notification and its document, with the original in Base64. */
  notificationDocument(notificationId: string): Promise<NotificationDocument> {
    return this.request('POST', '/developers/webhook', { notification_id: notificationId });
  }

  /** Subscribes a URL to one event kind; the secret (whsec_...) signs its deliveries. */
  createSubscription(event: EventKind, url: string): Promise<{ id: string; event: EventKind; url: string; secret: string }> {
    return this.request('POST', '/api/subscriptions', { event, url });
  }

  deleteSubscription(id: string): Promise<{ id: string; status: 'deleted' }> {
    return this.request('DELETE', `/api/subscriptions/${encodeURIComponent(id)}`);
  }

  listSubscriptions(): Promise<{ subscriptions: Subscription[] }> {
    return this.request('GET', '/api/subscriptions');
  }

  async pageData(file: Uint8Array, page = 0): Promise<{ page: number; pages: number; width: number; height: number; rotation: number }> {
    return parse(await this.rawUpload('/api/pdf/pageData', file, { page: String(page) }));
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
