// The TypeScript client of the Sello API: request signing exactly as the specification says
// (transport.ts), and typed methods for the operations, whose types are the API's schemas
// (types.ts). Used by the tests, the `sello api` command and integrators.
import { SignedTransport } from './transport.js';
import type {
  AccountBrand,
  AccountBrandUpdate,
  BulkInput,
  BulkRun,
  BulkStarted,
  AccountPackages,
  AccountSummary,
  CertifiedEmailData,
  ConsumptionReport,
  ClosedSet,
  CreateDocumentInput,
  CreatedDocument,
  CreatedSet,
  CreatedSubscription,
  DeleteOrRestoreResult,
  DeletedSubscription,
  DocumentFile,
  DocumentHistory,
  DocumentList,
  DocumentSet,
  EventKind,
  NotificationDocument,
  PageDataResult,
  RemovedSetSigner,
  SetSigner,
  SetWorkflowUpdate,
  SignatureReport,
  SignerUpdate,
  StampAnswer,
  StampList,
  CreatedEndorsement,
  EndorsementChain,
  EndorsementEntry,
  EndorsementInput,
  StampedPdf,
  StampedRevision,
  PdfStampsValidation,
  TimestampValidation,
  StickerInput,
  Subscription,
  SavedTemplate,
  DeliveryList,
  IdentityReview,
  IdentityReviewDetail,
  IdentityReviewList,
  RetriedDelivery,
  TemplateFields,
  TemplateInput,
  TemplateList,
  WorkflowUpdate,
} from './types.js';

export { type ClientOptions, type RawResponse, SelloApiError } from './transport.js';
export { verifyWebhook, WebhookVerificationError, type WebhookVerifyOptions } from './webhooks.js';
export type * from './types.js';

/** `path?k=v&…` of the parameters given (undefined ones left out); just `path` without any. */
function withQuery(path: string, q: Record<string, string | number | undefined>): string {
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(q)) {
    if (v !== undefined) {
      params.set(k, String(v));
    }
  }
  const qs = params.toString();
  return qs ? `${path}?${qs}` : path;
}

const seg = encodeURIComponent;

export class SelloClient extends SignedTransport {
  // Documents

  createDocument(input: CreateDocumentInput): Promise<CreatedDocument> {
    return this.request('POST', '/developers/json', input);
  }

  listDocuments(q: { from?: number; to?: number; limit?: number; nextToken?: string } = {}): Promise<DocumentList> {
    return this.request('GET', withQuery('/api/document', q));
  }

  async downloadDocument(type: 'original' | 'universal' | 'source', ticket: string): Promise<DocumentFile> {
    const r = await this.request<Record<string, string>>('GET', `/api/document/${seg(type)}/${seg(ticket)}`);
    return { bytes: Buffer.from(r[type], 'base64'), hash: r.hash, name: r.name };
  }

  /** The signature report: each signature's position, validity, certificates, revocation and time-stamp. */
  signatureReport(ticket: string): Promise<SignatureReport> {
    return this.request('GET', `/api/report/${seg(ticket)}`);
  }

  /** The signature report of any PDF (POST /api/report): the file is verified, not stored. */
  verifyPdf(file: Uint8Array): Promise<SignatureReport> {
    return this.upload('/api/report', file, {});
  }

  /** The document's history: every state change, invitation, view, signature and edit, hash-chained. */
  documentHistory(ticket: string): Promise<DocumentHistory> {
    return this.request('GET', `/api/v1/document/${seg(ticket)}/history/json`);
  }

  /** The history as a PDF sealed by the service (PAdES B-T), in the document's language or in `lang`. */
  historyPdf(ticket: string, lang?: 'es' | 'en'): Promise<Buffer> {
    const qs = lang ? `?lang=${lang}` : '';
    return this.getBytes(`/api/v1/document/${seg(ticket)}/history/pdf${qs}`);
  }

  /** The document's certified email and its evidence (sent, SMTP reply, delivery, open, download). */
  certifiedEmailData(ticket: string): Promise<CertifiedEmailData> {
    return this.request('GET', `/api/certifiedEmail/${seg(ticket)}/data`);
  }

  /** The certified email's evidence as a PDF sealed by the service (PAdES B-T), in the document's language. */
  certifiedEmailEvidence(ticket: string): Promise<Buffer> {
    return this.getBytes(`/api/certifiedEmail/${seg(ticket)}/evidence`);
  }

  deleteDocument(ticket: string): Promise<DeleteOrRestoreResult> {
    return this.request('POST', '/developers/docs', { ticket, action: 'delete' });
  }

  restoreDocument(ticket: string): Promise<DeleteOrRestoreResult> {
    return this.request('POST', '/developers/docs', { ticket, action: 'restore' });
  }

  pageData(file: Uint8Array, page = 0): Promise<PageDataResult> {
    return this.upload('/api/pdf/pageData', file, { page: String(page) });
  }

  /** POST /api/print: the PDF flattened (fields and annotations drawn into the pages), as bytes. */
  flattenPdf(file: Uint8Array): Promise<Buffer> {
    return this.uploadForBytes('/api/print', file);
  }

  // NOM-151 stamps and time stamps

  /** A NOM-151 stamp over a SHA-256 (hex or Base64). */
  stampHash(hash: string): Promise<StampAnswer> {
    return this.request('POST', '/api/timestamp', { hash });
  }

  /** Whether a token (Base64) is a valid stamp of the data given by its hash or as a file (Base64). */
  validateTimestamp(input: { hash?: string; file?: string; timestamp: string }): Promise<TimestampValidation> {
    return this.request('POST', '/api/timestamp/validate', input);
  }

  /** The PDF with a NOM-151 stamp applied as a document time stamp revision. */
  stampPdf(file: Uint8Array): Promise<StampedPdf> {
    return this.upload('/api/nom151/stamp', file);
  }

  /** Each document time stamp of a PDF, judged, and what changed after it. */
  validatePdfStamps(file: Uint8Array): Promise<PdfStampsValidation> {
    return this.upload('/api/nom151/validate', file);
  }

  listStamps(ticket: string): Promise<StampList> {
    return this.request('GET', `/api/document/${seg(ticket)}/stamps`);
  }

  // Endorsements

  /** Endorses a completed document; the endorser signs through the returned signer_url. */
  endorseDocument(ticket: string, input: EndorsementInput): Promise<CreatedEndorsement> {
    return this.request('POST', `/api/document/${seg(ticket)}/endorse`, input);
  }

  /** The document's endorsements in order, and its current holder. */
  listEndorsements(ticket: string): Promise<EndorsementChain> {
    return this.request('GET', `/api/document/${seg(ticket)}/endorsements`);
  }

  /**
   * Withdraws a pending endorsement: its endorser's link stops working, and a new endorsement may be
   * asked for. The reason (1 to 500 characters) is the account's own note.
   */
  withdrawEndorsement(ticket: string, endorsementId: string, reason?: string): Promise<EndorsementEntry> {
    return this.request(
      'DELETE',
      `/api/document/${seg(ticket)}/endorsements/${seg(endorsementId)}`,
      reason === undefined ? undefined : { reason },
    );
  }

  /** The exact bytes a stamp of the document covers, with the stamp. */
  stampedRevision(ticket: string, stampHash: string): Promise<StampedRevision> {
    return this.request('GET', `/api/document/${seg(ticket)}/stamp/${seg(stampHash)}/pdf`);
  }

  // Workflows

  /** Sets, changes or cancels the workflow of a standalone document. */
  updateWorkflow(ticket: string, workflow: Record<string, unknown>): Promise<WorkflowUpdate> {
    return this.request('POST', `/api/${seg(ticket)}/workflow`, workflow);
  }

  /** Corrects a signer who has not signed; the response carries the new signing link. */
  updateSigner(
    ticket: string,
    signerId: string,
    changes: { authority?: string; data?: string; name?: string | null; email?: string | null },
  ): Promise<SignerUpdate> {
    return this.request('POST', `/api/${seg(ticket)}/signer/${seg(signerId)}/update`, changes);
  }

  // Document sets

  createDocumentSet(input: { name?: string; metadata?: Record<string, unknown> } = {}): Promise<CreatedSet> {
    return this.request('POST', '/api/documentset', input);
  }

  getDocumentSet(uuid: string): Promise<DocumentSet> {
    return this.request('GET', `/api/documentset/${seg(uuid)}`);
  }

  /** Preloads a signer for the whole set while it is OPEN; the same (authority, data) returns the existing one. */
  addSetSigner(
    uuid: string,
    signer: { authority: StickerInput['authority']; data: string; name?: string; email?: string },
  ): Promise<SetSigner> {
    return this.request('POST', `/api/documentset/${seg(uuid)}/signer`, signer);
  }

  removeSetSigner(uuid: string, signerId: string): Promise<RemovedSetSigner> {
    return this.request('DELETE', `/api/documentset/${seg(uuid)}/signer/${seg(signerId)}`);
  }

  /** Closes an OPEN set with its workflow (snake_case keys): the flow starts and the invitations go out. */
  closeDocumentSet(uuid: string, workflow?: Record<string, unknown>): Promise<ClosedSet> {
    return this.request('POST', '/api/documentset/close', workflow === undefined ? { documentSet: uuid } : { documentSet: uuid, workflow });
  }

  /** Adjusts or cancels a closed set's flow; every call restarts it (the invitation goes again). */
  updateSetWorkflow(uuid: string, workflow: Record<string, unknown> = {}): Promise<SetWorkflowUpdate> {
    return this.request('POST', `/api/${seg(uuid)}/workflowSet`, workflow);
  }

  // Events

  // Templates

  /** Registers a template (html, pdf, pdfmake, docx), or replaces the one of the same name. */
  saveTemplate(input: TemplateInput): Promise<SavedTemplate> {
    return this.request('POST', '/developers/template/save', input);
  }

  /** Registers a pdf template from the raw PDF (its form fields become the template's fields). */
  saveTemplatePdf(name: string, file: Uint8Array): Promise<SavedTemplate> {
    return this.upload(`/developers/template/pdf?name=${encodeURIComponent(name)}`, file);
  }

  listTemplates(): Promise<TemplateList> {
    return this.request('GET', '/developers/templates');
  }

  /** The fields and tables a template expects. */
  templateFields(name: string): Promise<TemplateFields> {
    return this.request('GET', `/developers/template/${seg(name)}/fields`);
  }

  /** POST /developers/webhook: the notification and its document, with the original in Base64. */
  notificationDocument(notificationId: string): Promise<NotificationDocument> {
    return this.request('POST', '/developers/webhook', { notification_id: notificationId });
  }

  /** Subscribes a URL to one event kind; the secret (whsec_...) signs its deliveries. */
  createSubscription(event: EventKind, url: string): Promise<CreatedSubscription> {
    return this.request('POST', '/api/subscriptions', { event, url });
  }

  deleteSubscription(id: string): Promise<DeletedSubscription> {
    return this.request('DELETE', `/api/subscriptions/${seg(id)}`);
  }

  /**
   * Starts a bulk run: one document per row. The Idempotency-Key makes a retry safe (the same key
   * and body answer the same run); send the same key again when retrying a request that got no answer.
   */
  createBulk(input: BulkInput, idempotencyKey: string): Promise<BulkStarted> {
    return this.request('POST', '/api/bulk', input, { 'idempotency-key': idempotencyKey });
  }

  /** A bulk run's state and counts, and its rows' outcomes from `offset` (100 a page unless `limit`). */
  getBulk(bulkId: string, q: { offset?: number; limit?: number } = {}): Promise<BulkRun> {
    return this.request('GET', withQuery(`/api/bulk/${seg(bulkId)}`, q));
  }

  listSubscriptions(): Promise<{ subscriptions: Subscription[] }> {
    return this.request('GET', '/api/subscriptions');
  }

  /** The account's webhook deliveries, newest first (state: pending, delivered, failed, discarded). */
  listWebhookDeliveries(q: { state?: string; limit?: number; nextToken?: string } = {}): Promise<DeliveryList> {
    return this.request('GET', withQuery('/api/webhooks/deliveries', q));
  }

  /** Sends a delivery that failed (or waits for its next attempt) again now. */
  retryWebhookDelivery(id: string): Promise<RetriedDelivery> {
    return this.request('POST', `/api/webhooks/deliveries/${seg(id)}/retry`, {});
  }

  // Identity verification

  /** The account's identity reviews, newest first (status: pending, approved, rejected). */
  listIdentityReviews(q: { status?: string; limit?: number; before?: number } = {}): Promise<IdentityReviewList> {
    return this.request('GET', withQuery('/api/identity/reviews', q));
  }

  /** One review, with the signer's images in Base64 (until the retention period deletes them). */
  getIdentityReview(id: string): Promise<IdentityReviewDetail> {
    return this.request('GET', `/api/identity/reviews/${seg(id)}`);
  }

  /** Approves (the signer may sign) or rejects (with the reason: they may not) a pending review. */
  decideIdentityReview(id: string, decision: { decision: 'approve' | 'reject'; reason?: string }): Promise<IdentityReview> {
    return this.request('POST', `/api/identity/reviews/${seg(id)}`, decision);
  }

  // Account

  /** What is left of each kind of piece (null: no package of that kind, no limit). */
  getAccount(): Promise<AccountSummary> {
    return this.request('GET', '/api/account');
  }

  listPackages(): Promise<AccountPackages> {
    return this.request('GET', '/api/account/packages');
  }

  /** Pieces consumed between two instants (epoch ms; default the last 30 days), per kind and channel. */
  consumption(q: { from?: number; to?: number } = {}): Promise<ConsumptionReport> {
    return this.request('GET', withQuery('/api/account/consumption', q));
  }

  /** The sender's brand and the origins allowed to frame the signer pages (embed.ts mounts them). */
  getBrand(): Promise<AccountBrand> {
    return this.request('GET', '/api/account/brand');
  }

  /** Changes the fields given (null clears one); a bad field is a 400 naming it, and nothing changes. */
  updateBrand(change: AccountBrandUpdate): Promise<AccountBrand> {
    return this.request('POST', '/api/account/brand', change);
  }
}
