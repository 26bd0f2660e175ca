// The panel's calls to /panel/api: the session cookie goes by itself (same origin); every change
// carries the session's CSRF token, which the page learns from GET /panel/api/session. Every
// answer's type is the Static of the schema its route serialises it through (src/schemas/panel.ts,
// and the API's own schemas where the panel reuses an API use case): a field the page reads is a
// field the schema names, so none is dropped on the way.
import type { Static } from '@sinclair/typebox';
import type { CreatedDocument, DeleteOrRestoreResult, DocumentListing } from '../../../src/schemas/documents.js';
import type { DocumentHistory } from '../../../src/schemas/report.js';
import type { AccountBrand, AccountBrandUpdate, OperatorBrandView } from '../../../src/schemas/brand.js';
import type { CreatedSubscription, DeletedSubscription } from '../../../src/schemas/events.js';
import type {
  PanelDocumentPage,
  PanelKeyList,
  PanelLinkSent,
  PanelNewKey,
  PanelResentInvitation,
  PanelRevokedKey,
  PanelRotatedKey,
  PanelSessionView,
  PanelSetList,
  PanelSignedIn,
  PanelSubscriptions,
  PanelTemplateTrial,
  PanelTestEvent,
  PanelUsage,
  PanelWebhook,
  PanelWebhookSecret,
} from '../../../src/schemas/panel.js';
import type { StampList } from '../../../src/schemas/stamps.js';
import type { BulkRun, BulkRunList, BulkStarted, CreateBulkInput } from '../../../src/schemas/bulk.js';
import type { DeliveryList, RetriedDelivery } from '../../../src/schemas/webhook-deliveries.js';
import type { SignerUpdateResult, WorkflowUpdateResult } from '../../../src/schemas/workflows.js';
import type { DocumentSet } from '../../../src/schemas/sets.js';
import type { TemplateFields, TemplateList } from '../../../src/schemas/templates.js';
import type { Lang } from '../api';
import type { DraftPayload } from './draft-store';

export type ListedDocument = DocumentListing['documents'][number];

/** The document page: the listing's view of it, its history, and whether the service runs its flow. */
export type DocumentPageData = PanelDocumentPage;
export type Session = PanelSessionView;
export type ListedSets = PanelSetList;
export type { DeliveryList, DocumentHistory, DocumentListing };

export class PanelError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    /** The error's details, as the service gave them: `field` names what was refused (the prepare page shows it there). */
    readonly details?: unknown,
  ) {
    super(message);
  }
}

let csrf = '';

/** Remembers the session's CSRF token for the changes that follow. */
export function setCsrfToken(token: string): void {
  csrf = token;
}

async function call<T>(method: 'GET' | 'POST' | 'DELETE', path: string, body?: unknown, extra?: Record<string, string>): Promise<T> {
  const headers: Record<string, string> = { ...extra };
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
  const data = (await res.json().catch(() => null)) as { error?: { code: string; message: string; details?: unknown } } | null;
  if (!res.ok) {
    if (res.status === 401 && data?.error?.code === 'PANEL_SESSION_REQUIRED') {
      // The session ended (idle, signed out elsewhere): the app goes back to the sign-in page.
      window.dispatchEvent(new Event('panel-session-ended'));
    }
    throw new PanelError(res.status, data?.error?.code ?? 'HTTP', data?.error?.message ?? `HTTP ${res.status}`, data?.error?.details);
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
  requestLink: (email: string, language: string) => call<Static<typeof PanelLinkSent>>('POST', '/sign-in/request', { email, language }),
  signIn: (token: string) => call<Static<typeof PanelSignedIn>>('POST', '/sign-in', { token }),
  session: () => call<Session>('GET', '/session'),
  signOut: () => call<void>('POST', '/sign-out'),
  documents: (q: { q?: string; status?: string; from?: string; to?: string; nextToken?: string }) =>
    call<DocumentListing>('GET', `/documents${qs(q)}`),
  document: (ticket: string) => call<DocumentPageData>('GET', `/documents/${encodeURIComponent(ticket)}`),
  resendInvitation: (ticket: string, signerId: string) =>
    call<PanelResentInvitation>('POST', `/documents/${encodeURIComponent(ticket)}/signers/${encodeURIComponent(signerId)}/resend`),
  updateSigner: (ticket: string, signerId: string, body: { name?: string; authority?: string; data?: string }) =>
    call<SignerUpdateResult>('POST', `/documents/${encodeURIComponent(ticket)}/signers/${encodeURIComponent(signerId)}/update`, body),
  updateWorkflow: (ticket: string, body: { expiration_date?: string; cancel?: true }) =>
    call<WorkflowUpdateResult>('POST', `/documents/${encodeURIComponent(ticket)}/workflow`, body),
  deleteDocument: (ticket: string) => call<DeleteOrRestoreResult>('POST', `/documents/${encodeURIComponent(ticket)}/delete`),
  restoreDocument: (ticket: string) => call<DeleteOrRestoreResult>('POST', `/documents/${encodeURIComponent(ticket)}/restore`),
  webhook: () => call<Static<typeof PanelWebhook>>('GET', '/webhook'),
  setWebhook: (url: string) => call<Static<typeof PanelWebhookSecret>>('POST', '/webhook', { url }),
  rotateSecret: () => call<Static<typeof PanelWebhookSecret>>('POST', '/webhook/secret'),
  testEvent: () => call<Static<typeof PanelTestEvent>>('POST', '/webhook/test'),
  deliveries: (q: { state?: string; nextToken?: string }) => call<DeliveryList>('GET', `/webhook/deliveries${qs(q)}`),
  retryDelivery: (id: string) => call<RetriedDelivery>('POST', `/webhook/deliveries/${encodeURIComponent(id)}/retry`),
  subscriptions: () => call<Static<typeof PanelSubscriptions>>('GET', '/webhook/subscriptions'),
  addSubscription: (event: string, url: string) => call<CreatedSubscription>('POST', '/webhook/subscriptions', { event, url }),
  deleteSubscription: (id: string) => call<DeletedSubscription>('DELETE', `/webhook/subscriptions/${encodeURIComponent(id)}`),
  stamps: (ticket: string) => call<StampList>('GET', `/documents/${encodeURIComponent(ticket)}/stamps`),
  sets: (q: { q?: string; status?: string; from?: string; to?: string; nextToken?: string }) => call<ListedSets>('GET', `/sets${qs(q)}`),
  set: (uuid: string) => call<DocumentSet>('GET', `/sets/${encodeURIComponent(uuid)}`),
  templates: () => call<TemplateList>('GET', '/templates'),
  templateFields: (name: string) => call<TemplateFields>('GET', `/templates/${encodeURIComponent(name)}/fields`),
  tryTemplate: (name: string, body: { fields: { id: string; value: string }[] }) =>
    call<Static<typeof PanelTemplateTrial>>('POST', `/templates/${encodeURIComponent(name)}/try`, body),
  keys: () => call<Static<typeof PanelKeyList>>('GET', '/keys'),
  createKey: () => call<Static<typeof PanelNewKey>>('POST', '/keys'),
  rotateKey: (id: string) => call<Static<typeof PanelRotatedKey>>('POST', `/keys/${encodeURIComponent(id)}/rotate`),
  revokeKey: (id: string) => call<Static<typeof PanelRevokedKey>>('POST', `/keys/${encodeURIComponent(id)}/revoke`),
  usage: () => call<Static<typeof PanelUsage>>('GET', '/usage'),
  brand: () => call<AccountBrand>('GET', '/brand'),
  setBrand: (change: AccountBrandUpdate) => call<AccountBrand>('POST', '/brand', change),
  operatorBrand: () => call<OperatorBrandView>('GET', '/operator-brand'),
  /** `key` is made once per send: the same key again answers the run it made (a double click, a retry). */
  startBulk: (body: CreateBulkInput, key: string) => call<BulkStarted>('POST', '/bulk', body, { 'idempotency-key': key }),
  bulkRun: (bulkId: string, q: { offset?: string; limit?: string }) => call<BulkRun>('GET', `/bulk/${encodeURIComponent(bulkId)}${qs(q)}`),
  bulkRuns: (q: { offset?: string; limit?: string }) => call<BulkRunList>('GET', `/bulk${qs(q)}`),
  createDocument: (body: DraftPayload) => call<CreatedDocument>('POST', '/documents', body),
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
