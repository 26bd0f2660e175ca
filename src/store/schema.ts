// Row types of the tables, as Kysely sees them: generated from the migrated database by
// scripts/generate-store-schema.ts (`node bin/run-ts.js scripts/generate-store-schema.ts`); do not edit.
// test/integration/store-schema.test.ts fails when this file and the migrations disagree.
import type { ColumnType, Generated } from 'kysely';

/** timestamptz: read as a Date, written as a Date or an ISO 8601 string. */
type Timestamp = ColumnType<Date, Date | string, Date | string>;
type NullableTimestamp = ColumnType<Date | null, Date | string | null, Date | string | null>;
/** jsonb: read parsed, written as JSON text (pg would write a JavaScript array as a PostgreSQL array). */
type Json = ColumnType<unknown, string, string>;
type NullableJson = ColumnType<unknown, string | null, string | null>;
/** A column with a default (or an identity): optional on insert. */
type Defaulted<C> = C extends ColumnType<infer S, infer I, infer U> ? ColumnType<S, I | undefined, U> : Generated<C>;

/** The state of a document set. */
export type SetStatus = 'OPEN' | 'CLOSED' | 'COMPLETED' | 'REJECTED' | 'EXPIRED' | 'CANCELLED';

/** The state of a document. */
export type DocumentStatus = 'draft' | 'pending' | 'completed' | 'rejected' | 'expired' | 'cancelled' | 'deleted';

/** The engine a template renders with. */
export type TemplateType = 'html' | 'pdf' | 'pdfmake' | 'docx';

/** The state of a notification or of one of its deliveries. */
export type DeliveryState = 'pending' | 'delivered' | 'failed' | 'discarded';

/** The kind of an endorsement. */
export type EndorsementType = 'propiedad' | 'procuracion' | 'garantia';

/** A kind of billable piece (decisions.md "Accounts and packages"). */
export type PieceKind = 'documents' | 'verifications' | 'messages' | 'stamps';

/** What a stamp covers: a rendition of a document, or a client's hash or PDF. */
export type StampSubject = 'original' | 'universal' | 'hash' | 'pdf';

/** An event an account can subscribe to and be notified of. */
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
  | 'identity_verification_passed'
  | 'bulk_completed';

/** A row of `accounts`. */
export interface AccountsTable {
  id: Generated<string>;
  web_id: string;
  name: string;
  webhook_url: string | null;
  webhook_secret_enc: Buffer | null;
  time_zone: Generated<string>;
  created_at: Defaulted<Timestamp>;
  logo_png: Buffer | null;
  nom151_default: Generated<boolean>;
  identity_retries: Generated<number>;
  identity_decision: Generated<'manual' | 'automatic'>;
  signer_key: 'rsa-2048' | 'ecdsa-p256' | null;
  frame_origins: Generated<string[]>;
  brand_name: string | null;
  brand_colour: string | null;
  email_sender_name: string | null;
  email_reply_to: string | null;
  hide_sello: Generated<boolean>;
}

/** A row of `api_keys`. */
export interface ApiKeysTable {
  id: Generated<string>;
  account_id: string;
  key_enc: Buffer;
  active: Generated<boolean>;
  created_at: Defaulted<Timestamp>;
}

/** A row of `bulk_rows`. */
export interface BulkRowsTable {
  id: Generated<string>;
  run_id: string;
  index: number;
  data: Json;
  state: Generated<'pending' | 'claimed' | 'created' | 'refused' | 'not_made'>;
  claim_token: string | null;
  document_id: string | null;
  error: NullableJson;
  updated_at: Timestamp;
}

/** A row of `bulk_runs`. */
export interface BulkRunsTable {
  id: Generated<string>;
  bulk_id: string;
  account_id: string;
  idempotency_key: string;
  body_sha256: string;
  state: Generated<'running' | 'completed' | 'stopped'>;
  base: Json;
  source_sha256: string | null;
  source_name: string | null;
  row_count: number;
  created_at: Timestamp;
  finished_at: NullableTimestamp;
  created_rows: number | null;
  refused_rows: number | null;
}

/** A row of `certified_emails`. */
export interface CertifiedEmailsTable {
  id: Generated<string>;
  document_id: string;
  recipient: string;
  subject: string;
  message: string;
  send_on: 'created' | 'completed';
  created_at: Timestamp;
  message_id: string | null;
  header_message_id: string | null;
  envelope_id: Generated<string>;
  document_sha256: string | null;
  attached: boolean | null;
  open_token_hash: Buffer | null;
  download_token_hash: Buffer | null;
  queued_at: NullableTimestamp;
  raw_sha256: string | null;
  raw_bytes: number | null;
  sent_at: NullableTimestamp;
  smtp_reply: string | null;
  refused_at: NullableTimestamp;
  refusal_reply: string | null;
  refused_by_server: boolean | null;
  delivered_at: NullableTimestamp;
  bounced_at: NullableTimestamp;
  delivery_reports: Defaulted<Json>;
  opened_at: NullableTimestamp;
  open_ip: string | null;
  open_user_agent: string | null;
  downloaded_at: NullableTimestamp;
  download_ip: string | null;
  download_user_agent: string | null;
  evidence_pdf_sha256: string | null;
  evidence_fingerprint: string | null;
  raw_blob: string | null;
}

/** A row of `channel_messages`. */
export interface ChannelMessagesTable {
  id: Generated<string>;
  message_id: string;
  account_id: string | null;
  document_id: string | null;
  signer_id: string | null;
  channel: 'sms' | 'whatsapp';
  kind: 'invitation' | 'reminder' | 'otp';
  language: 'es' | 'en';
  recipient: string;
  body_text: string | null;
  template_params: Defaulted<Json>;
  status: Generated<'queued' | 'sending' | 'sent' | 'delivered' | 'outbox' | 'failed'>;
  provider: string | null;
  provider_message_id: string | null;
  attempts: Generated<number>;
  claimed_at: NullableTimestamp;
  error_code: string | null;
  reply: string | null;
  created_at: Timestamp;
  sent_at: NullableTimestamp;
  delivered_at: NullableTimestamp;
  failed_at: NullableTimestamp;
  body_sealed: Buffer | null;
}

/** A row of `consumption`. */
export interface ConsumptionTable {
  id: Generated<string>;
  account_id: string;
  kind: PieceKind;
  channel: string;
  package_id: string | null;
  document_id: string | null;
  at: Timestamp;
}

/** A row of `csc_authorizations`. */
export interface CscAuthorizationsTable {
  state_hash: string;
  signer_row_id: string;
  provider: string;
  code_verifier_sealed: Buffer;
  language: string;
  created_at: Timestamp;
  expires_at: Timestamp;
  used_at: NullableTimestamp;
  field_values: NullableJson;
  set_token_sealed: Buffer | null;
  prepared_sealed: Buffer | null;
}

/** A row of `document_history`. */
export interface DocumentHistoryTable {
  id: Generated<string>;
  document_id: string;
  seq: number;
  at: Timestamp;
  action: string;
  actor: string;
  ip: string | null;
  details: Defaulted<Json>;
  prev_hash: string;
  hash: string;
}

/** A row of `document_revisions`. */
export interface DocumentRevisionsTable {
  id: Generated<string>;
  document_id: string;
  revision: number;
  sha256: string;
  signer_row_id: string | null;
  created_at: Timestamp;
}

/** A row of `document_sets`. */
export interface DocumentSetsTable {
  id: Generated<string>;
  uuid: string;
  account_id: string;
  name: Generated<string>;
  metadata: NullableJson;
  status: Generated<SetStatus>;
  workflow: NullableJson;
  created_at: Defaulted<Timestamp>;
  updated_at: Defaulted<Timestamp>;
  closed_at: NullableTimestamp;
  flow_started_at: NullableTimestamp;
  expires_at: NullableTimestamp;
  flow_generation: Generated<number>;
  concluded_at: NullableTimestamp;
}

/** A row of `document_tombstones`. */
export interface DocumentTombstonesTable {
  ticket: string;
  account_id: string;
  created_at: Timestamp;
  deleted_at: Timestamp;
  seq: number;
  at: Timestamp;
  action: string;
  actor: string;
  details: Json;
  prev_hash: string;
  hash: string;
}

/** A row of `documents`. */
export interface DocumentsTable {
  id: Generated<string>;
  ticket: string;
  account_id: string;
  set_id: string | null;
  name: string;
  status: DocumentStatus;
  status_before_delete: DocumentStatus | null;
  origin: 'b64_doc' | 'url_doc' | 'template';
  source_sha256: string;
  original_sha256: string;
  size_bytes: number;
  page_count: number;
  has_flow: boolean;
  workflow: NullableJson;
  extra: Defaulted<Json>;
  created_at: Defaulted<Timestamp>;
  updated_at: Defaulted<Timestamp>;
  deleted_at: NullableTimestamp;
  completed_at: NullableTimestamp;
  history_head: Generated<string>;
  history_count: Generated<number>;
  flow_started_at: NullableTimestamp;
  expires_at: NullableTimestamp;
  flow_generation: Generated<number>;
  concluded_at: NullableTimestamp;
  universal_sha256: string | null;
  universal_status: 'pending' | 'ready' | 'failed' | null;
  universal_error: string | null;
  universal_at: NullableTimestamp;
  universal_tsa_not_after: NullableTimestamp;
  universal_renew_at: NullableTimestamp;
  nom151: Generated<boolean>;
}

/** A row of `download_links`. */
export interface DownloadLinksTable {
  id: Generated<string>;
  token_hash: Buffer;
  document_id: string;
  expires_at: Timestamp;
  created_at: Timestamp;
}

/** A row of `endorsements`. */
export interface EndorsementsTable {
  id: Generated<string>;
  endorsement_id: string;
  document_id: string;
  sequence: number;
  type: EndorsementType;
  text: string;
  endorser_name: string;
  endorsee_name: string;
  endorsee_email: string | null;
  endorsee_rfc: string | null;
  signer_row_id: string;
  status: Generated<'pending' | 'signed' | 'declined' | 'withdrawn'>;
  created_at: Timestamp;
  signed_at: NullableTimestamp;
  declined_at: NullableTimestamp;
  withdrawn_at: NullableTimestamp;
  withdrawal_reason: string | null;
}

/** A row of `identity_evidence`. */
export interface IdentityEvidenceTable {
  id: Generated<string>;
  signer_row_id: string;
  review_id: string | null;
  kind: 'front' | 'back' | 'selfie';
  content_type: string;
  width: number;
  height: number;
  size_bytes: number;
  sha256: string;
  sealed: Buffer;
  created_at: Timestamp;
  quality: NullableJson;
}

/** A row of `identity_reviews`. */
export interface IdentityReviewsTable {
  id: Generated<string>;
  account_id: string;
  document_id: string;
  signer_row_id: string;
  status: Generated<'pending' | 'approved' | 'rejected'>;
  checks: Json;
  reason: string | null;
  created_at: Timestamp;
  decided_at: NullableTimestamp;
  evidence_deleted_at: NullableTimestamp;
  provider: Generated<string>;
  provider_session: string | null;
  automatic_checks: NullableJson;
  set_signer_id: string | null;
}

/** A row of `issued_certificates`. */
export interface IssuedCertificatesTable {
  serial_hex: string;
  kind: 'signer' | 'tsa' | 'ocsp' | 'seal';
  subject: string;
  document_id: string | null;
  signer_row_id: string | null;
  not_before: Timestamp;
  not_after: Timestamp;
  revoked_at: NullableTimestamp;
  revocation_reason: number | null;
  created_at: Defaulted<Timestamp>;
}

/** A row of `job_workers`. */
export interface JobWorkersTable {
  id: Generated<number>;
  pool_id: string;
  hostname: string;
  pid: number;
  heartbeat_ms: number;
  dead_after_ms: number;
  started_at: Defaulted<Timestamp>;
  last_seen: Defaulted<Timestamp>;
}

/** A row of `mail_messages`. */
export interface MailMessagesTable {
  id: Generated<string>;
  message_id: string;
  account_id: string | null;
  document_id: string | null;
  kind: 'invitation' | 'reminder' | 'conclusion' | 'otp' | 'certified' | 'panel_sign_in';
  recipient: string;
  subject: string;
  body_text: string | null;
  body_html: string | null;
  attachments: Defaulted<Json>;
  status: Generated<'queued' | 'sent' | 'outbox' | 'failed'>;
  attempts: Generated<number>;
  reply: string | null;
  created_at: Timestamp;
  sent_at: NullableTimestamp;
  body_sealed: Buffer | null;
}

/** A row of `notification_deliveries`. */
export interface NotificationDeliveriesTable {
  id: Generated<string>;
  notification_id: string;
  target: string;
  subscription_id: string | null;
  state: Generated<DeliveryState>;
  attempts: Generated<number>;
  last_status: number | null;
  last_error: string | null;
  last_attempt_at: NullableTimestamp;
  next_attempt_at: NullableTimestamp;
  delivered_at: NullableTimestamp;
  created_at: Defaulted<Timestamp>;
  updated_at: Defaulted<Timestamp>;
}

/** A row of `notifications`. */
export interface NotificationsTable {
  id: Generated<string>;
  notification_id: string;
  account_id: string;
  document_id: string | null;
  set_id: string | null;
  kind: EventKind;
  meta: Defaulted<Json>;
  dedupe_key: string | null;
  state: Generated<DeliveryState>;
  attempts: Generated<number>;
  last_status: number | null;
  last_error: string | null;
  delivered_at: NullableTimestamp;
  created_at: Defaulted<Timestamp>;
  updated_at: Defaulted<Timestamp>;
  bulk_run_id: string | null;
}

/** A row of `packages`. */
export interface PackagesTable {
  id: Generated<string>;
  public_id: string;
  account_id: string;
  kind: PieceKind;
  pieces: number;
  used: Generated<number>;
  valid_from: Timestamp;
  valid_to: Timestamp;
  ended_at: NullableTimestamp;
  created_at: Defaulted<Timestamp>;
}

/** A row of `panel_sessions`. */
export interface PanelSessionsTable {
  id: Generated<string>;
  session_hash: Buffer;
  user_id: string;
  account_id: string;
  csrf_token: string;
  created_at: Timestamp;
  last_seen_at: Timestamp;
  expires_at: Timestamp;
  ended_at: NullableTimestamp;
}

/** A row of `panel_sign_in_links`. */
export interface PanelSignInLinksTable {
  id: Generated<string>;
  user_id: string;
  token_hash: Buffer;
  created_at: Timestamp;
  expires_at: Timestamp;
  used_at: NullableTimestamp;
}

/** A row of `panel_users`. */
export interface PanelUsersTable {
  id: Generated<string>;
  account_id: string;
  email: string;
  created_at: Timestamp;
}

/** A row of `pdf_page_sizes`. */
export interface PdfPageSizesTable {
  sha256: string;
  pages: Json;
  created_at: Defaulted<Timestamp>;
}

/** A row of `pki_material`. */
export interface PkiMaterialTable {
  id: number;
  source: 'generated' | 'operator';
  sealed: Json;
  created_at: Defaulted<Timestamp>;
}

/** A row of `rate_counts`. */
export interface RateCountsTable {
  key: string;
  window_end: string;
  node: string;
  count: number;
}

/** A row of `sat_preparations`. */
export interface SatPreparationsTable {
  id: Generated<string>;
  signer_row_id: string;
  document_id: string;
  base_sha256: string;
  prepared_sha256: string;
  byte_range: number[];
  contents_start: number;
  contents_end: number;
  signed_attributes: Buffer;
  certificate: Buffer;
  chain_pem: string;
  rfc: string | null;
  certificate_number: string | null;
  ocsp_status: 'good' | 'unknown';
  signed_at: Timestamp;
  language: string;
  created_at: Timestamp;
  expires_at: Timestamp;
  finished_at: NullableTimestamp;
  ocsp_response: Buffer | null;
  authority: Generated<'SAT' | 'CERT' | 'CSC'>;
  csc_provider: string | null;
  field_values: NullableJson;
}

/** A row of `schema_migrations`. */
export interface SchemaMigrationsTable {
  version: number;
  name: string;
  applied_at: Defaulted<Timestamp>;
}

/** A row of `set_signers`. */
export interface SetSignersTable {
  id: Generated<string>;
  signer_id: string;
  set_id: string;
  position: number;
  authority: string;
  data: string;
  name: string | null;
  email: string | null;
  preloaded: boolean;
  status: Generated<'pending' | 'invited' | 'viewed' | 'signed' | 'rejected'>;
  token_hash: Buffer | null;
  token_sealed: Buffer | null;
  invited_at: NullableTimestamp;
  last_reminded_at: NullableTimestamp;
  reminders_sent: Generated<number>;
  created_at: Timestamp;
}

/** A row of `signer_fields`. */
export interface SignerFieldsTable {
  document_id: string;
  field_id: string;
  signer_row_id: string;
  sticker_id: string;
  field_index: number;
  type: 'text' | 'date' | 'checkbox' | 'initials' | 'dropdown';
  page: number;
  lx: number;
  ly: number;
  tx: number;
  ty: number;
  required: Generated<boolean>;
  label: string | null;
  format: string | null;
  options: NullableJson;
  date_format: string | null;
  value: NullableJson;
  filled_at: NullableTimestamp;
}

/** A row of `signers`. */
export interface SignersTable {
  id: Generated<string>;
  signer_id: string;
  document_id: string;
  position: number;
  authority: string;
  data: string;
  name: string | null;
  email: string | null;
  status: Generated<string>;
  token_hash: Buffer | null;
  created_at: Defaulted<Timestamp>;
  viewed_at: NullableTimestamp;
  signed_at: NullableTimestamp;
  rejected_at: NullableTimestamp;
  rejection_reason: string | null;
  certificate_serial: string | null;
  signature_type: 'drawn' | 'typed' | 'efirma' | 'certificate' | null;
  otp_hash: Buffer | null;
  otp_expires_at: NullableTimestamp;
  otp_sent_at: NullableTimestamp;
  otp_attempts: Generated<number>;
  verified_at: NullableTimestamp;
  action_ip: string | null;
  token_sealed: Buffer | null;
  invited_at: NullableTimestamp;
  last_reminded_at: NullableTimestamp;
  reminders_sent: Generated<number>;
  set_signer_id: string | null;
  certificate_status: string | null;
  identity_status: 'verification_pending' | 'verified' | 'verification_failed' | null;
  role: Generated<'signer' | 'endorser'>;
  certificate_match: NullableJson;
}

/** A row of `stamp_failures`. */
export interface StampFailuresTable {
  document_id: string;
  subject: 'original' | 'universal';
  reason: string;
  attempt: number;
  max_attempts: number;
  failed_at: Timestamp;
}

/** A row of `stamps`. */
export interface StampsTable {
  id: Generated<string>;
  account_id: string;
  document_id: string | null;
  subject: StampSubject;
  covered_sha256: string;
  token: Buffer;
  provider: 'built_in' | 'psc';
  tsa_name: string;
  gen_time: Timestamp;
  serial: string;
  created_at: Defaulted<Timestamp>;
}

/** A row of `stickers`. */
export interface StickersTable {
  id: Generated<string>;
  sticker_id: string;
  document_id: string;
  signer_row_id: string;
  sticker_index: number;
  page: number;
  lx: number;
  ly: number;
  tx: number;
  ty: number;
  extra: Defaulted<Json>;
}

/** A row of `subscriptions`. */
export interface SubscriptionsTable {
  id: Generated<string>;
  subscription_id: string;
  account_id: string;
  event: EventKind;
  url: string;
  secret_enc: Buffer;
  active: Generated<boolean>;
  disabled_reason: string | null;
  disabled_at: NullableTimestamp;
  deleted_at: NullableTimestamp;
  created_at: Defaulted<Timestamp>;
}

/** A row of `templates`. */
export interface TemplatesTable {
  id: Generated<string>;
  account_id: string;
  name: string;
  type: TemplateType;
  source_sha256: string;
  fields: Json;
  tables: Json;
  created_at: Defaulted<Timestamp>;
  updated_at: Defaulted<Timestamp>;
}

/** A row of `universal_revisions`. */
export interface UniversalRevisionsTable {
  id: Generated<string>;
  document_id: string;
  seq: number;
  kind: 'initial' | 'renewal';
  sha256: string;
  timestamp_time: Timestamp;
  tsa: string;
  tsa_not_after: Timestamp;
  created_at: Timestamp;
}

/** Every table of the database, for Kysely<Database>. */
export interface Database {
  accounts: AccountsTable;
  api_keys: ApiKeysTable;
  bulk_rows: BulkRowsTable;
  bulk_runs: BulkRunsTable;
  certified_emails: CertifiedEmailsTable;
  channel_messages: ChannelMessagesTable;
  consumption: ConsumptionTable;
  csc_authorizations: CscAuthorizationsTable;
  document_history: DocumentHistoryTable;
  document_revisions: DocumentRevisionsTable;
  document_sets: DocumentSetsTable;
  document_tombstones: DocumentTombstonesTable;
  documents: DocumentsTable;
  download_links: DownloadLinksTable;
  endorsements: EndorsementsTable;
  identity_evidence: IdentityEvidenceTable;
  identity_reviews: IdentityReviewsTable;
  issued_certificates: IssuedCertificatesTable;
  job_workers: JobWorkersTable;
  mail_messages: MailMessagesTable;
  notification_deliveries: NotificationDeliveriesTable;
  notifications: NotificationsTable;
  packages: PackagesTable;
  panel_sessions: PanelSessionsTable;
  panel_sign_in_links: PanelSignInLinksTable;
  panel_users: PanelUsersTable;
  pdf_page_sizes: PdfPageSizesTable;
  pki_material: PkiMaterialTable;
  rate_counts: RateCountsTable;
  sat_preparations: SatPreparationsTable;
  schema_migrations: SchemaMigrationsTable;
  set_signers: SetSignersTable;
  signer_fields: SignerFieldsTable;
  signers: SignersTable;
  stamp_failures: StampFailuresTable;
  stamps: StampsTable;
  stickers: StickersTable;
  subscriptions: SubscriptionsTable;
  templates: TemplatesTable;
  universal_revisions: UniversalRevisionsTable;
}
