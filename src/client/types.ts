// The client's types: the API's own schemas (src/schemas/), read as TypeScript types, so the
// client cannot drift from what the server validates and answers.
import type { Static } from '@sinclair/typebox';
import type { Rect as RectSchema } from '../schemas/common.js';
import type { CreateDocumentBody } from '../schemas/documents.js';
import type { SaveTemplateBody } from '../schemas/templates.js';
import type { ListedSubscription } from '../schemas/events.js';
import type { SetSignerView } from '../schemas/sets.js';
import type { SetWorkflowResult } from '../schemas/sets.js';
import type { SignerUpdateResult, WorkflowUpdateResult } from '../schemas/workflows.js';
import type {
  PdfStampsValidation as PdfStampsValidationSchema,
  StampAnswer as StampAnswerSchema,
  StampList as StampListSchema,
  StampedPdf as StampedPdfSchema,
  StampedRevision as StampedRevisionSchema,
  TimestampValidation as TimestampValidationSchema,
} from '../schemas/stamps.js';

export type {
  ArchivalState,
  CreatedDocument,
  DeleteOrRestoreResult,
  DocumentListing as DocumentList,
  PageDataResult,
  RenditionState,
} from '../schemas/documents.js';
export type { AccountPackages, AccountSummary, ConsumptionReport } from '../schemas/accounts.js';
export type { AccountBrand, AccountBrandUpdate } from '../schemas/brand.js';
export type { BulkRun, BulkStarted } from '../schemas/bulk.js';
export type { CreatedSubscription, DeletedSubscription, NotificationDocument } from '../schemas/events.js';
export type { DocumentHistory, ReportBox, SignatureReport } from '../schemas/report.js';
export type { CertifiedEmailData } from '../schemas/certified-email.js';
export type { ClosedSet, CreatedSet, DocumentSet, RemovedSetSigner } from '../schemas/sets.js';
export type { WorkflowSettings } from '../schemas/workflows.js';
export type { DeliveryList, RetriedDelivery, WebhookDelivery } from '../schemas/webhook-deliveries.js';
export type { IdentityReview, IdentityReviewDetail, IdentityReviewList } from '../schemas/identity.js';
export type { SavedTemplate, TemplateFields, TemplateList } from '../schemas/templates.js';
export type { CreatedEndorsement, EndorsementChain, EndorsementEntry } from '../schemas/endorsements.js';
export type { CertPrepared } from '../schemas/cert-signing.js';
export type { CscAuthorization } from '../schemas/csc-signing.js';
/** Fields signers fill: a field of the create payload's signer_fields, the session's view of one, the values a signer sends, what the report and webhook list. */
export type {
  CreatedSignerField,
  DateFormat,
  FieldValue,
  FieldValues,
  FilledSignerField,
  SignerFieldInput,
  SignerFieldType,
  SignerFieldView,
} from '../schemas/signer-fields.js';
import type { EndorseBody } from '../schemas/endorsements.js';
/** The body of endorseDocument: the endorsement, its endorser and endorsee, and optionally its box. */
export type EndorsementInput = Static<typeof EndorseBody>;

export type Rect = Static<typeof RectSchema>;
import type { CreateBulkBody } from '../schemas/bulk.js';
/** The body of createBulk: one origin, the boxes with {{row.<key>}} placeholders, and the rows. */
export type BulkInput = Static<typeof CreateBulkBody> & { [key: string]: unknown };
type CreatePayload = Static<typeof CreateDocumentBody>;
/** A CERT or CSC sticker's rule for the signer's certificate: this subject attribute must hold this value. */
export interface CertificateMatch {
  field: 'serialNumber' | 'uid' | 'email';
  value: string;
}
/** A box and its signer; `authority` CERT signs with the signer's own certificate, CSC with a provider's credential (docs/api.md). */
export type StickerInput = Omit<NonNullable<CreatePayload['stickers']>[number], 'certificate_match'> & {
  certificate_match?: CertificateMatch;
};
/**
 * The create payload. Unknown keys are sent as given (the server lists them in `warnings`), a
 * document's workflow takes camelCase keys too, and `qr` is passed through for the server to check
 * (its answer names the entry and the rule).
 */
export type CreateDocumentInput = Omit<CreatePayload, 'workflow' | 'qr' | 'stickers'> & {
  stickers?: StickerInput[];
  workflow?: Record<string, unknown>;
  qr?: CreatePayload['qr'] | unknown;
  [key: string]: unknown;
};

/** One of the thirteen event identifiers a subscription may name. */
export type EventKind = ListedSubscription['event'];
export type Subscription = ListedSubscription;
/** A signer of a document set (preloaded, or found on its documents when it closed). */
export type SetSigner = SetSignerView;
export type WorkflowUpdate = WorkflowUpdateResult;
export type SignerUpdate = SignerUpdateResult;
export type SetWorkflowUpdate = SetWorkflowResult;

/** A downloaded rendition: the bytes decoded from the JSON envelope, with its SHA-256 and name. */
export interface DocumentFile {
  bytes: Buffer;
  hash: string;
  name: string;
}

export type StampAnswer = Static<typeof StampAnswerSchema>;
export type TimestampValidation = Static<typeof TimestampValidationSchema>;
export type StampedPdf = Static<typeof StampedPdfSchema>;
export type PdfStampsValidation = Static<typeof PdfStampsValidationSchema>;
export type StampList = Static<typeof StampListSchema>;
export type StampedRevision = Static<typeof StampedRevisionSchema>;

/** The body of saveTemplate: type, name and data (Base64, or a pdfmake definition). */
export type TemplateInput = Static<typeof SaveTemplateBody>;
