// Which transport carries each channel, from the configuration: SMS through Twilio; WhatsApp through
// Meta's Cloud API when it is configured, else through Twilio when a WhatsApp sender is set.
import type { ChannelSettings } from '../config.js';
import { createMetaTransport } from './meta-whatsapp.js';
import type { MessageChannels } from './message-transport.js';
import { createTwilioTransport } from './twilio.js';

/** The path of Twilio's status callbacks; the message id rides in the query. */
export const TWILIO_STATUS_PATH = '/channels/twilio/status';
/** The path of Meta's webhook (verification GET and status POSTs). */
export const META_WEBHOOK_PATH = '/channels/meta/webhook';

export function createMessageChannels(c: ChannelSettings, publicUrl: () => string): MessageChannels {
  const statusCallback = (messageId: string) => `${publicUrl()}${TWILIO_STATUS_PATH}?message_id=${encodeURIComponent(messageId)}`;
  const out: MessageChannels = {};
  if (c.twilio && (c.twilio.smsFrom || c.twilio.messagingServiceSid)) {
    out.sms = createTwilioTransport(c.twilio, { channel: 'sms', statusCallback });
  }
  if (c.meta) {
    out.whatsapp = createMetaTransport(c.meta);
  } else if (c.twilio?.whatsappFrom) {
    out.whatsapp = createTwilioTransport(c.twilio, { channel: 'whatsapp', statusCallback });
  }
  return out;
}
