// The panel's calls to /panel/api: the session cookie goes by itself (same origin); every change
// carries the session's CSRF token, which the page learns from GET /panel/api/session. The
// answers' shapes are the API's own schemas where the panel reuses an API use case.
import type { AccountPackages, ConsumptionReport } from '../../../src/schemas/accounts.js';
import type { DeleteOrRestoreResult, DocumentListing } from '../../../src/schemas/documents.js';
import type { DocumentHistory } from '../../../src/schemas/report.js';
import type { CreatedSubscription, DeletedSubscription, SubscriptionList } from '../../../src/schemas/events.js';
import type { StampList } from '../../../src/schemas/stamps.js';
import type { DeliveryList, RetriedDelivery } from '../../../src/schemas/webhook-deliveries.js';
import type { SignerUpdateResult, WorkflowUpdateResult } from '../../../src/schemas/workflows.js';
import type { DocumentSet } from '../../../src/schemas/sets.js';
import type { TemplateFields, TemplateList } from '../../../src/schemas/templates.js';
import type { ListedSets } from '../../../src/domain/panel/list-document-sets.js';
import type { Lang } from '../api';

export type ListedDocument = DocumentListing['documents'][number];

/** The document page: the listing's view of it, its history, and whether the service runs its flow. */
export interface DocumentPageData {
  document: ListedDocument;
  history: DocumentHistory;
  /** `time_zone`: the account's, where a new expiration date ends a day. */
  workflow: { started: boolean; in_set: boolean; expires_at: string | null; time_zone: string };
  /** Each history actor `signer:<signer_id>` of the document in words (name and address). */
  people: Record<string, string>;
}
export type { DeliveryList, DocumentHistory, DocumentListing };

export interface Session {
  email: string;
  account: { web_id: string; name: string; time_zone: string };
  csrf_token: string;
  expires_at: string;
  idle_expires_at: string;
}

export class PanelError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

let csrf = '';

/** Remembers the session's CSRF token for the changes that follow. */
export function setCsrfToken(token: string): void {
  csrf = token;
}

async function call<T>(method: 'GET' | 'POST' | 'DELETE', path: string, body?: unknown): Promise<T> {
  const headers: Record<string, string> = {};
  if (method !== 'GET') {
    headers['content-type'] = 'application/json';
    if (csrf) {
      headers['x-csrf-token'] = csrf;
    }
  }
  const res = await fetch(`/panel/api${path}`, {
    method,
    headers,
    body: method !== 'GET' ? JSON.stringify(body ?? {}) : undefined,
    credentials: 'same-origin',
  });
  if (res.status === 204) {
    return undefined as T;
  }
  const data = (await res.json().catch(() => null)) as { error?: { code: string; message: string } } | null;
  if (!res.ok) {
    if (res.status === 401 && data?.error?.code === 'PANEL_SESSION_REQUIRED') {
      // The session ended (idle, signed out elsewhere): the app goes back to the sign-in page.
      window.dispatchEvent(new Event('panel-session-ended'));
    }
    throw new PanelError(res.status, data?.error?.code ?? 'HTTP', data?.error?.message ?? `HTTP ${res.status}`);
  }
  return data as T;
}

const qs = (q: Record<string, string | undefined>) => {
  const p = new URLSearchParams();
  for (const [k, v] of Object.entries(q)) {
    if (v) {
      p.set(k, v);
    }
  }
  const s = p.toString();
  return s ? `?${s}` : '';
};

export const api = {
  requestLink: (email: string, language: string) => call<{ sent: true }>('POST', '/sign-in/request', { email, language }),
  signIn: (token: string) => call<{ signed_in: true }>('POST', '/sign-in', { token }),
  session: () => call<Session>('GET', '/session'),
  signOut: () => call<void>('POST', '/sign-out'),
  documents: (q: { q?: string; status?: string; from?: string; to?: string; nextToken?: string }) =>
    call<DocumentListing>('GET', `/documents${qs(q)}`),
  document: (ticket: string) => call<DocumentPageData>('GET', `/documents/${encodeURIComponent(ticket)}`),
  resendInvitation: (ticket: string, signerId: string) =>
    call<{ sent_at: string }>('POST', `/documents/${encodeURIComponent(ticket)}/signers/${encodeURIComponent(signerId)}/resend`),
  updateSigner: (ticket: string, signerId: string, body: { name?: string; authority?: string; data?: string }) =>
    call<SignerUpdateResult>('POST', `/documents/${encodeURIComponent(ticket)}/signers/${encodeURIComponent(signerId)}/update`, body),
  updateWorkflow: (ticket: string, body: { expiration_date?: string; cancel?: true }) =>
    call<WorkflowUpdateResult>('POST', `/documents/${encodeURIComponent(ticket)}/workflow`, body),
  deleteDocument: (ticket: string) => call<DeleteOrRestoreResult>('POST', `/documents/${encodeURIComponent(ticket)}/delete`),
  restoreDocument: (ticket: string) => call<DeleteOrRestoreResult>('POST', `/documents/${encodeURIComponent(ticket)}/restore`),
  webhook: () => call<{ url: string | null; secret_set: boolean }>('GET', '/webhook'),
  setWebhook: (url: string) => call<{ url: string; secret: string }>('POST', '/webhook', { url }),
  rotateSecret: () => call<{ url: string; secret: string }>('POST', '/webhook/secret'),
  testEvent: () =>
    call<{ url: string; notification_id: string; delivered: boolean; status: number | null; error: string | null }>(
      'POST',
      '/webhook/test',
    ),
  deliveries: (q: { state?: string; nextToken?: string }) => call<DeliveryList>('GET', `/webhook/deliveries${qs(q)}`),
  retryDelivery: (id: string) => call<RetriedDelivery>('POST', `/webhook/deliveries/${encodeURIComponent(id)}/retry`),
  subscriptions: () => call<SubscriptionList & { event_kinds: string[] }>('GET', '/webhook/subscriptions'),
  addSubscription: (event: string, url: string) => call<CreatedSubscription>('POST', '/webhook/subscriptions', { event, url }),
  deleteSubscription: (id: string) => call<DeletedSubscription>('DELETE', `/webhook/subscriptions/${encodeURIComponent(id)}`),
  stamps: (ticket: string) => call<StampList>('GET', `/documents/${encodeURIComponent(ticket)}/stamps`),
  sets: (q: { q?: string; status?: string; from?: string; to?: string; nextToken?: string }) => call<ListedSets>('GET', `/sets${qs(q)}`),
  set: (uuid: string) => call<DocumentSet>('GET', `/sets/${encodeURIComponent(uuid)}`),
  templates: () => call<TemplateList>('GET', '/templates'),
  templateFields: (name: string) => call<TemplateFields>('GET', `/templates/${encodeURIComponent(name)}/fields`),
  tryTemplate: (name: string, body: { fields: { id: string; value: string }[] }) =>
    call<{ name: string; warnings: string[]; pdf: string }>('POST', `/templates/${encodeURIComponent(name)}/try`, body),
  keys: () => call<{ keys: { id: string; active: boolean; created_at: string }[]; max_active: number }>('GET', '/keys'),
  createKey: () => call<{ id: string; api_key: string }>('POST', '/keys'),
  rotateKey: (id: string) => call<{ id: string; api_key: string; replaced: string }>('POST', `/keys/${encodeURIComponent(id)}/rotate`),
  revokeKey: (id: string) => call<{ id: string }>('POST', `/keys/${encodeURIComponent(id)}/revoke`),
  usage: () => call<{ remaining: Record<string, number | null>; packages: AccountPackages; months: ConsumptionReport[] }>('GET', '/usage'),
};

/**
 * Where a download is: a plain link, so the browser saves it with the session cookie. The history
 * PDF comes in the panel's language (`lang`), which may not be the document's.
 */
export const downloadUrl = (ticket: string, what: 'source' | 'original' | 'universal' | 'report' | 'history', lang: Lang) => {
  const t = encodeURIComponent(ticket);
  if (what === 'report') {
    return `/panel/api/documents/${t}/report`;
  }
  if (what === 'history') {
    return `/panel/api/documents/${t}/history.pdf?lang=${lang}`;
  }
  return `/panel/api/documents/${t}/files/${what}`;
};

/** The exact bytes a stamp covers, as a PDF the browser saves. */
export const stampedBytesUrl = (ticket: string, hash: string) =>
  `/panel/api/documents/${encodeURIComponent(ticket)}/stamps/${encodeURIComponent(hash)}/pdf`;
