// SMS and WhatsApp transports behind one interface: Twilio's Messages API (SMS, and WhatsApp through
// Twilio) and Meta's WhatsApp Cloud API (notify/twilio.ts, notify/meta-whatsapp.ts). Without a
// configured provider for a channel, messages stay in the outbox table (the caller records them
// there in every case), readable with `sello messages list` and, outside production, at /dev/outbox.
import type { TextKind } from './message-templates.js';

export interface OutgoingMessage {
  /** Sello's message id: carried to the provider so its status callbacks name the message. */
  messageId: string;
  kind: TextKind;
  language: 'es' | 'en';
  /** E.164 phone number. */
  to: string;
  text: string;
  params: string[];
}

export interface AcceptedMessage {
  /** The provider's id of the message (Twilio's MessageSid, Meta's wamid). */
  providerId: string;
  /** The provider's answer, shortened, for the outbox. */
  reply: string;
}

/** A refusal or a failure to reach the provider, with its code (decisions.md: *_error meta). */
export class MessageDeliveryError extends Error {
  constructor(
    message: string,
    /** The provider's error code (e.g. Twilio 21211, Meta 131026), or the HTTP status, or '' (network). */
    readonly code: string,
    readonly reply: string,
    /** True when sending again cannot help (the number is invalid, the template refused...). */
    readonly permanent: boolean,
    /** True when the provider may have taken the message although no answer came (a timeout). */
    readonly ambiguous = false,
  ) {
    super(message);
    this.name = 'MessageDeliveryError';
  }
}

export interface MessageTransport {
  /** The provider's name, stored with each message: `twilio` or `meta`. */
  readonly provider: 'twilio' | 'meta';
  send(m: OutgoingMessage): Promise<AcceptedMessage>;
}

/** The transport of each channel; a channel without one keeps its messages in the outbox. */
export interface MessageChannels {
  sms?: MessageTransport;
  whatsapp?: MessageTransport;
}

/** Provider answers are stored and sent in events: bounded, whatever a provider returns. */
export function shortReply(s: string): string {
  return s.length > 1000 ? `${s.slice(0, 1000)}…` : s;
}

/** Reads a provider's answer, at most 64 KiB, as text. */
export async function readAnswer(res: Response): Promise<string> {
  const text = await res.text();
  return text.slice(0, 65536);
}

/**
 * A fetch that failed before any answer: ambiguous unless the connection was never made (the
 * provider cannot have the message then).
 */
export function unreached(provider: string, err: unknown): MessageDeliveryError {
  const e = err as Error & { cause?: { code?: string } };
  const neverConnected = ['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH'].includes(e.cause?.code ?? '');
  return new MessageDeliveryError(`${provider} not reached: ${e.message}`, '', e.cause?.code ?? e.message, false, !neverConnected);
}
