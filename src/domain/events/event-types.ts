// The event kinds and the shape of each one's `meta` (decisions.md "Events"). The database checks
// the same thirteen identifiers (store/migrations/0040_bulk_runs.sql).

import { EVENT_KINDS } from '../../schemas/events.js';

export { EVENT_KINDS };

/** One of the thirteen event identifiers. */
export type EventKind = (typeof EVENT_KINDS)[number];

export function isEventKind(value: unknown): value is EventKind {
  return typeof value === 'string' && (EVENT_KINDS as readonly string[]).includes(value);
}

/** Most characters of a rejection reason carried in `meta` (decisions.md "Limits"). */
export const REJECTION_REASON_MAX = 300;

/** Who an event is about: the signer as the document lists it. */
export interface EventSigner {
  signer_id: string;
  name: string | null;
  email: string | null;
  authority: string;
  data: string;
}

/** The signer as events name them. */
export function eventSigner(s: EventSigner): EventSigner {
  return { signer_id: s.signer_id, name: s.name, email: s.email, authority: s.authority, data: s.data };
}

/** original_signed: who signed, how, and when (ISO 8601). */
export interface SignedMeta {
  signer: EventSigner;
  authority: string;
  signed_at: string;
  /** Present when the signature is an endorsement of a completed document (decisions.md "Endorsements"). */
  endorsement_id?: string;
}

/** universal_signed: the long-term-validation rendition exists; the level it reaches and its document time stamp. */
export interface UniversalSignedMeta {
  /** `PAdES-B-LTA`. */
  level: string;
  /** The document time stamp over the rendition: its genTime (ISO 8601) and the authority's name. */
  timestamp: { time: string; tsa: string };
}

/** document_rejected: who rejected and why (at most 300 characters). */
export interface RejectedMeta {
  signer: EventSigner;
  reason: string;
}

/** whatsapp_error, sms_error, email_error: a message that could not be delivered. */
export interface DeliveryErrorMeta {
  channel: 'whatsapp' | 'sms' | 'email';
  recipient: string;
  /** The provider's delivery-error code. */
  code: string;
  /** The provider's or receiving mail server's reply, as received. */
  reply: string;
}

/** original_nom151_stamped, universal_nom151_stamped: the stamp itself. */
export interface StampedMeta {
  stamp: {
    /** Base64 of the RFC 3161 TimeStampToken. */
    token: string;
    /** The authority that issued it. */
    tsa: string;
    /** genTime of the token, ISO 8601. */
    time: string;
    /** The token's serial number, hex. */
    serial?: string;
    /** SHA-256 (hex) of the exact bytes stamped: `{stampHash}` of the stamp's download. */
    hash?: string;
    /** `built_in` (the service's own authority, not an accredited PSC) or `psc` (the operator's provider). */
    provider?: 'built_in' | 'psc';
  };
}

/** identity_verification_failed, identity_verification_passed. */
export interface IdentityMeta {
  signer: EventSigner;
  provider: string;
  /** Why it failed; null when it passed. */
  reason: string | null;
}

/** document_completed: nothing beyond the document itself. */
export type EmptyMeta = Record<string, never>;

/** workflow_expired: when the flow ended and who had not signed yet. */
export interface ExpiredMeta {
  expired_at: string;
  pending_signers: EventSigner[];
}

/** bulk_completed: the run's size, and how many rows were not made because the package ran out. */
export interface BulkCompletedMeta {
  rows: number;
  not_made: number;
}

/** The `meta` of each event kind. */
export interface EventMeta {
  original_signed: SignedMeta;
  universal_signed: UniversalSignedMeta;
  document_completed: EmptyMeta;
  document_rejected: RejectedMeta;
  workflow_expired: ExpiredMeta;
  whatsapp_error: DeliveryErrorMeta;
  sms_error: DeliveryErrorMeta;
  email_error: DeliveryErrorMeta;
  original_nom151_stamped: StampedMeta;
  universal_nom151_stamped: StampedMeta;
  identity_verification_failed: IdentityMeta;
  identity_verification_passed: IdentityMeta;
  bulk_completed: BulkCompletedMeta;
}

/**
 * The JSON body of a delivery, and the `notification` of POST /developers/webhook (which leaves
 * out document_title).
 */
export interface NotificationBody {
  notification_id: string;
  notification_type: EventKind;
  document_ticket: string | null;
  document_title: string | null;
  document_set: string | null;
  created_at: string;
  meta: unknown;
}

/** The JSON body of a bulk_completed delivery (decisions.md "Bulk send"): about a run, not a document. */
export interface BulkNotificationBody {
  notification_id: string;
  notification_type: 'bulk_completed';
  bulk_id: string;
  state: 'completed' | 'stopped';
  created: number;
  refused: number;
  created_at: string;
  meta: unknown;
}
