// The signer behind a signing link, and whether the document can still be signed. Tokens are long
// random values stored hashed (domain/ids.ts): the lookup hashes what the link carries.
import type { Transaction } from 'kysely';
import { AppError } from '../errors.js';
import { hashToken } from '../ids.js';
import type { Db } from '../../store/db.js';
import type { Database } from '../../store/schema.js';
import { findByToken, type SigningDocument, type SigningSigner } from '../../store/signing-repo.js';
import { waitsForEarlierSigner } from '../../store/workflow-repo.js';
import { withdrawalOfSigner } from '../../store/endorsements-repo.js';

export interface SigningSession {
  signer: SigningSigner;
  document: SigningDocument;
}

const TOKEN = /^[A-Za-z0-9_-]{43}$/;

const NOT_SIGNABLE: Record<string, string> = {
  completed: 'the document is already signed by everyone',
  rejected: 'the document was rejected by a signer',
  expired: 'the signing period of this document has ended',
  cancelled: 'the signing of this document was cancelled',
  deleted: 'the document was deleted',
  draft: 'the document belongs to a set that has not been sent yet',
};

/**
 * The session of a token, or SIGNING_LINK_INVALID. `lock` locks the document row (inside trx).
 * An endorser's link whose endorsement was withdrawn opens nothing (ENDORSEMENT_WITHDRAWN): read
 * after the lock, so a signature or refusal that waited for a withdrawal sees it.
 */
export async function openSession(q: Db | Transaction<Database>, token: string, lock = false): Promise<SigningSession> {
  const found = TOKEN.test(token) ? await findByToken(q, hashToken(token), lock) : undefined;
  if (!found) {
    throw new AppError('SIGNING_LINK_INVALID', 'this signing link is not valid; ask the sender for a new one');
  }
  if (found.signer.role === 'endorser') {
    const withdrawal = await withdrawalOfSigner(q, found.signer.id);
    if (withdrawal) {
      throw endorsementWithdrawn(withdrawal.withdrawn_at);
    }
  }
  return found;
}

export function endorsementWithdrawn(at: Date | null): AppError {
  return new AppError('ENDORSEMENT_WITHDRAWN', 'the sender withdrew this endorsement: this link can no longer show, sign or decline it', {
    withdrawn_at: at ? new Date(at).toISOString() : null,
  });
}

/** Refuses a document that can no longer be signed or rejected (DOCUMENT_NOT_SIGNABLE, details.status). */
export function requireDocumentSignable(status: string): void {
  const reason = NOT_SIGNABLE[status];
  if (reason) {
    throw new AppError('DOCUMENT_NOT_SIGNABLE', reason, { status });
  }
}

/**
 * Refuses a document that can no longer be signed or rejected, or a signer who already acted. An
 * endorser signs a completed document, and only while it stays completed (not deleted).
 */
export function requireSignable(s: SigningSession): void {
  if (s.signer.role === 'endorser') {
    if (s.document.status !== 'completed') {
      throw new AppError('DOCUMENT_NOT_SIGNABLE', `the document can no longer be endorsed: it is ${s.document.status}`, {
        status: s.document.status,
      });
    }
  } else {
    requireDocumentSignable(s.document.status);
  }
  if (s.signer.status === 'signed') {
    throw new AppError('ALREADY_SIGNED', 'you have already signed this document', { signed_at: s.signer.signed_at });
  }
  if (s.signer.status === 'rejected') {
    throw new AppError('ALREADY_SIGNED', 'you have already rejected this document');
  }
}

/** In an ordered flow, only the signer the flow waits for may sign or reject. */
export async function requireTurn(trx: Transaction<Database>, s: SigningSession): Promise<void> {
  if (await waitsForEarlierSigner(trx, s.document.id, s.signer.id)) {
    throw new AppError('NOT_YOUR_TURN', 'this document is signed in order: you will receive an invitation when it is your turn');
  }
}
