// Row types of the tables, as Kysely sees them. One interface per table of store/migrations.
import type { ColumnType, Generated } from 'kysely';

type Timestamp = ColumnType<Date, Date | string | undefined, Date | string>;
type Json = ColumnType<unknown, string | undefined, string>;

export interface AccountsTable {
  id: Generated<string>;
  web_id: string;
  name: string;
  webhook_url: string | null;
  webhook_secret_enc: Buffer | null;
  time_zone: Generated<string>;
  created_at: Generated<Date>;
  /** The logo signers see on the signer page (PNG), set by the operator. */
  logo_png: Buffer | null;
  /** Whether documents created without `nom151` in their payload are stamped on completion. */
  nom151_default: Generated<boolean>;
  /** Further attempts after a rejected identity verification (0 to 5). */
  identity_retries: Generated<number>;
  /** Who decides an identity review whose built-in checks all passed: a person, or the checks. */
  identity_decision: Generated<'manual' | 'automatic'>;
}

export interface ApiKeysTable {
  id: Generated<string>;
  account_id: string;
  key_enc: Buffer;
  active: Generated<boolean>;
  created_at: Generated<Date>;
}

type NullableTimestamp = ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;

export type SetStatus = 'OPEN' | 'CLOSED' | 'COMPLETED' | 'REJECTED' | 'EXPIRED' | 'CANCELLED';

export interface DocumentSetsTable {
  id: Generated<string>;
  uuid: string;
  account_id: string;
  name: Generated<string>;
  metadata: Json | null;
  status: ColumnType<SetStatus, SetStatus | undefined, SetStatus>;
  workflow: Json | null;
  created_at: Generated<Date>;
  updated_at: Timestamp;
  closed_at: NullableTimestamp;
  flow_started_at: NullableTimestamp;
  expires_at: NullableTimestamp;
  flow_generation: Generated<number>;
  concluded_at: NullableTimestamp;
}

export type DocumentStatus = 'draft' | 'pending' | 'completed' | 'rejected' | 'expired' | 'cancelled' | 'deleted';

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
  workflow: Json | null;
  extra: ColumnType<unknown, string | undefined, string>;
  created_at: Generated<Date>;
  updated_at: Timestamp;
  deleted_at: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
  /** Hash of the last history entry (64 zeros before the first) and the number of entries. */
  history_head: Generated<string>;
  history_count: Generated<number>;
  flow_started_at: NullableTimestamp;
  expires_at: NullableTimestamp;
  flow_generation: Generated<number>;
  concluded_at: NullableTimestamp;
  /** The completed renditions are stamped (NOM-151). */
  nom151: Generated<boolean>;
  /** The universal rendition (0013_universal.sql): its blob, state, last failure and renewal. */
  universal_sha256: string | null;
  /** pending: queued or retried (universal_error: the last attempt's reason); failed: no attempt left. */
  universal_status: 'pending' | 'ready' | 'failed' | null;
  universal_error: string | null;
  universal_at: NullableTimestamp;
  universal_tsa_not_after: NullableTimestamp;
  universal_renew_at: NullableTimestamp;
}

/** One universal revision made: the first, then each renewal (0013_universal.sql). */
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
  token_sealed: Buffer | null;
  invited_at: NullableTimestamp;
  last_reminded_at: NullableTimestamp;
  reminders_sent: Generated<number>;
  set_signer_id: string | null;
  identity_status: 'verification_pending' | 'verified' | 'verification_failed' | null;
  /** 'endorser': the signer of an endorsement (0023_endorsements.sql), not one of the document's signers. */
  role: Generated<'signer' | 'endorser'>;
  created_at: Generated<Date>;
}

export type EndorsementType = 'propiedad' | 'procuracion' | 'garantia';

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
  status: Generated<string>;
  token_hash: Buffer | null;
  token_sealed: Buffer | null;
  invited_at: NullableTimestamp;
  last_reminded_at: NullableTimestamp;
  reminders_sent: Generated<number>;
  created_at: Timestamp;
}

export interface DocumentHistoryTable {
  id: Generated<string>;
  document_id: string;
  seq: number;
  at: Timestamp;
  action: string;
  actor: string;
  ip: string | null;
  details: Json;
  prev_hash: string;
  hash: string;
}

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
  extra: ColumnType<unknown, string | undefined, string>;
}

export type TemplateType = 'html' | 'pdf' | 'pdfmake' | 'docx';

export interface TemplatesTable {
  id: Generated<string>;
  account_id: string;
  name: string;
  type: TemplateType;
  source_sha256: string;
  fields: ColumnType<unknown, string, string>;
  tables: ColumnType<unknown, string, string>;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export type DeliveryState = 'pending' | 'delivered' | 'failed' | 'discarded';

export interface SubscriptionsTable {
  id: Generated<string>;
  subscription_id: string;
  account_id: string;
  event: string;
  url: string;
  secret_enc: Buffer;
  active: Generated<boolean>;
  disabled_reason: string | null;
  disabled_at: NullableTimestamp;
  deleted_at: NullableTimestamp;
  created_at: Timestamp;
}

export interface NotificationsTable {
  id: Generated<string>;
  notification_id: string;
  account_id: string;
  document_id: string | null;
  set_id: string | null;
  kind: string;
  meta: Json;
  dedupe_key: string | null;
  state: ColumnType<DeliveryState, DeliveryState | undefined, DeliveryState>;
  attempts: Generated<number>;
  last_status: number | null;
  last_error: string | null;
  delivered_at: NullableTimestamp;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface NotificationDeliveriesTable {
  id: Generated<string>;
  notification_id: string;
  target: string;
  subscription_id: string | null;
  state: ColumnType<DeliveryState, DeliveryState | undefined, DeliveryState>;
  attempts: Generated<number>;
  last_status: number | null;
  last_error: string | null;
  last_attempt_at: NullableTimestamp;
  next_attempt_at: NullableTimestamp;
  delivered_at: NullableTimestamp;
  created_at: Timestamp;
  updated_at: Timestamp;
}

/** A live job runner (jobs/worker-liveness.ts); its SQL is in job-workers-repo.ts. */
export interface JobWorkersTable {
  id: Generated<number>;
  pool_id: string;
  hostname: string;
  pid: number;
  heartbeat_ms: number;
  dead_after_ms: number;
  started_at: Generated<Date>;
  last_seen: Generated<Date>;
}

export interface Database {
  accounts: AccountsTable;
  api_keys: ApiKeysTable;
  document_sets: DocumentSetsTable;
  documents: DocumentsTable;
  signers: SignersTable;
  endorsements: EndorsementsTable;
  set_signers: SetSignersTable;
  stickers: StickersTable;
  document_history: DocumentHistoryTable;
  templates: TemplatesTable;
  subscriptions: SubscriptionsTable;
  notifications: NotificationsTable;
  notification_deliveries: NotificationDeliveriesTable;
  job_workers: JobWorkersTable;
  packages: PackagesTable;
  consumption: ConsumptionTable;
  stamps: StampsTable;
  stamp_failures: StampFailuresTable;
  universal_revisions: UniversalRevisionsTable;
}

/** A kind of billable piece (decisions.md "Accounts and packages"). */
export type PieceKind = 'documents' | 'verifications' | 'messages' | 'stamps';

/** A contracted package of pieces of one kind (store/packages-repo.ts). */
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
  created_at: Generated<Date>;
}

/** One billable action and the package its piece came from (null: no limit of that kind). */
export interface ConsumptionTable {
  id: Generated<string>;
  account_id: string;
  kind: PieceKind;
  channel: string;
  package_id: string | null;
  document_id: string | null;
  at: Timestamp;
}

/** What a stamp covers: a rendition of a document, or a client's hash or PDF (API stamps). */
export type StampSubject = 'original' | 'universal' | 'hash' | 'pdf';

export interface StampsTable {
  id: Generated<string>;
  account_id: string;
  document_id: string | null;
  subject: StampSubject;
  covered_sha256: string;
  token: Buffer;
  provider: 'built_in' | 'psc';
  tsa_name: string;
  gen_time: Date;
  serial: string;
  created_at: Generated<Date>;
}

/** The last failed attempt of a document's NOM-151 stamp job, until the stamp is made (0025_stamp_failures.sql). */
export interface StampFailuresTable {
  document_id: string;
  subject: 'original' | 'universal';
  reason: string;
  attempt: number;
  max_attempts: number;
  failed_at: Date;
}
