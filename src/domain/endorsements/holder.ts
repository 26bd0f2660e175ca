// Who holds a document after an endorsement: its endorsee, recognized by the email or the RFC the
// endorsement named. Only an endorser proven by one of them (an EMAIL or EMAIL_LINK signer on that
// address, a SAT signer with that RFC) may endorse next; a phone proves neither.
import type { EndorsementRow } from '../../store/endorsements-repo.js';

export function isHolder(
  last: Pick<EndorsementRow, 'endorsee_email' | 'endorsee_rfc'>,
  endorser: { authority: string; data: string },
): boolean {
  if (endorser.authority === 'EMAIL' || endorser.authority === 'EMAIL_LINK') {
    return last.endorsee_email !== null && last.endorsee_email === endorser.data.toLowerCase();
  }
  if (endorser.authority === 'SAT') {
    return last.endorsee_rfc !== null && last.endorsee_rfc === endorser.data.toUpperCase();
  }
  return false;
}
