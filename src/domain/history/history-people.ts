// Who a history entry is about, in words: each signer and endorser of the document by name and
// contact ("Ana García · ana@example.com"), or by the contact alone when the signer has no name,
// keyed by the entry's actor (`signer:<signer_id>`). The history itself keeps the ids: they are
// what the hash chain covers; the names are read at the time of reading, so a corrected name shows.
import type { Db } from '../../store/db.js';
import { signersOf } from '../../store/signing-repo.js';

export async function historyPeople(db: Db, documentId: string): Promise<Map<string, string>> {
  const signers = await signersOf(db, documentId, { endorsers: true });
  return new Map(signers.map((x) => [`signer:${x.signer_id}`, [x.name, x.email ?? x.data].filter(Boolean).join(' · ')]));
}
