// A signer's state as the signer page shows it, named as the document listing names it
// (documents-repo.ts): before signing or rejecting, a signer asked to verify their identity is in
// that verification's state, so the signer and the sender read the same word for the same moment.
import type { SigningSigner } from '../../store/signing-repo.js';

type Row = Pick<SigningSigner, 'status' | 'identity_status'>;

/** Another signer of the document, as the listing shows them. */
export function listedSignerStatus(s: Row): string {
  return s.identity_status !== null && s.status !== 'signed' && s.status !== 'rejected' ? s.identity_status : s.status;
}

/** The signer who opened the page: viewed now that they opened it, unless their identity is in question. */
export function ownSignerStatus(s: Row): string {
  const listed = listedSignerStatus(s);
  return listed === 'pending' || listed === 'invited' ? 'viewed' : listed;
}
