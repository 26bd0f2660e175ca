// Who holds a document after an endorsement: its endorsee, recognized by the email or the RFC the
// endorsement named. Only an endorser who will prove to be them may endorse next: EMAIL (a code sent
// to the endorsee's address) or SAT (the e.firma of the endorsee's RFC). Not EMAIL_LINK: its link is
// answered to the API caller and proves nothing about who opens it, so the account could endorse in
// the holder's name. A phone proves neither.
import type { EndorsementRow } from '../../store/endorsements-repo.js';

export function isHolder(
  last: Pick<EndorsementRow, 'endorsee_email' | 'endorsee_rfc'>,
  endorser: { authority: string; data: string },
): boolean {
  if (endorser.authority === 'EMAIL') {
    return last.endorsee_email !== null && last.endorsee_email === endorser.data.toLowerCase();
  }
  if (endorser.authority === 'SAT') {
    return last.endorsee_rfc !== null && last.endorsee_rfc === endorser.data.toUpperCase();
  }
  return false;
}
