// The EMAIL authority on a set link: one code proves the signer for all their documents. The code is
// sent and checked by one-time-code.ts on the first document still to sign (the same one for both
// calls: nothing can be signed in between without the code); once it is verified, the verification
// is copied to the person's other document rows, each of which records it in its history.
import type { Deps } from '../deps.js';
import { appendHistory } from '../history/append-history.js';
import { sendOneTimeCode, verifyOneTimeCode } from '../signing/one-time-code.js';
import { lockDocuments } from '../../store/set-flow-repo.js';
import { copyVerification } from '../../store/set-signers-repo.js';
import { openSetSession, requireSetActionable, rowToken } from './set-signing-session.js';
import type { CodeBody, CodeSent, CodeVerified } from '../../schemas/signing.js';

export async function sendSetCode(deps: Deps, token: string, ip?: string): Promise<CodeSent> {
  const s = await openSetSession(deps.db, token);
  const open = await requireSetActionable(deps.db, s);
  return sendOneTimeCode(deps, rowToken(deps, open[0]), ip);
}

export async function verifySetCode(deps: Deps, token: string, body: CodeBody, ip?: string): Promise<CodeVerified> {
  const s = await openSetSession(deps.db, token);
  const open = await requireSetActionable(deps.db, s);
  const anchor = open[0];
  const verified = await verifyOneTimeCode(deps, rowToken(deps, anchor), body, ip);
  const at = new Date(verified.verified_at);
  await deps.db.transaction().execute(async (trx) => {
    await lockDocuments(
      trx,
      open.map((r) => r.document_id),
    );
    await copyVerification(trx, s.signer.id, anchor.id);
    for (const row of open.slice(1)) {
      await appendHistory(trx, {
        documentId: row.document_id,
        at,
        action: 'otp_verified',
        actor: `signer:${row.signer_id}`,
        ip: ip ?? null,
        details: { document_set: s.set.uuid, code_sent_with: anchor.ticket },
      });
    }
  });
  return verified;
}
