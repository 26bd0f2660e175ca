// Who may ask for their personal link on the document_url page, and with what: the address or
// phone their invitations go to. Shared by the page (to label the field) and the request.
import { phoneChannelOf } from '../messages/queue-message.js';

/** The authorities whose proof starts with a message to the signer's address or phone. */
const LINKED_AUTHORITIES = new Set(['EMAIL_LINK', 'EMAIL', 'SMS', 'WHATSAPP', 'CERT', 'CSC']);

/** What a box's signer types to ask for their link here, or null when they cannot. */
export function linkBy(box: { authority: string; email: string | null }): 'email' | 'phone' | null {
  if (phoneChannelOf(box.authority)) {
    return 'phone';
  }
  if (LINKED_AUTHORITIES.has(box.authority) || (box.authority === 'SAT' && !!box.email)) {
    return 'email';
  }
  return null;
}
