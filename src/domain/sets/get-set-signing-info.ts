// GET /sign/api/set/{token}: what the signer page needs to sign a whole set in one visit: the set,
// this signer (as the per-document API shows one), whether the flow waits for them now, and every
// document where they have a box with its pages, their boxes and where to fetch its PDF. Opening it
// marks the signer as having viewed each document still to sign (record-view.ts, per document).
import type { Deps } from '../deps.js';
import { storedPageSizes } from '../documents/page-sizes.js';
import { isProven, provenByCode } from '../signing/one-time-code.js';
import { signerProof } from '../signing/get-signing-info.js';
import { explicitLanguage } from '../signing/workflow-language.js';
import { senderInfo, workflowMessage } from '../signing/sender.js';
import { recordView } from '../signing/record-view.js';
import { listSetSigners, markSetSignerViewed } from '../../store/set-signers-repo.js';
import { stickersOf } from '../../store/signing-repo.js';
import { isDue, openRows, openSetSession, rowSession } from './set-signing-session.js';
import { setIdentityState } from './set-identity.js';
import type { SetSigningInfo } from '../../schemas/signing.js';
import { fieldsOfSigner } from '../../store/signer-fields-repo.js';
import { accountTimeZone } from '../../store/workflow-repo.js';
import { fieldViews } from '../signing/signer-fields.js';

export async function getSetSigningInfo(deps: Deps, token: string, ip?: string): Promise<SetSigningInfo> {
  let s = await openSetSession(deps.db, token);
  const running = s.set.status === 'CLOSED';
  if (running && openRows(s).length > 0) {
    await markSetSignerViewed(deps.db, s.signer.id);
    for (const row of openRows(s)) {
      await recordView(deps, await rowSession(deps, row), ip);
    }
    s = await openSetSession(deps.db, token);
  }
  const open = openRows(s);
  const proven =
    s.signer.authority === 'EMAIL_LINK' ||
    (provenByCode(s.signer.authority) && open.length > 0 && (await isProven(deps, await rowSession(deps, open[0]))));
  // One document at a time: a set may hold many large PDFs, and only their page sizes are needed.
  const documents = [];
  let timeZone: string | undefined;
  for (const r of s.rows) {
    const boxes = await stickersOf(deps.db, r.id);
    const pages = await storedPageSizes(deps, r.original_sha256);
    const fields = await fieldsOfSigner(deps.db, r.id);
    if (fields.length > 0) {
      timeZone ??= await accountTimeZone(deps.db, s.set.account_id);
    }
    documents.push({
      document_ticket: r.ticket,
      name: r.document_name,
      status: r.document_status,
      signer_status: r.status,
      signed_at: r.signed_at ? new Date(r.signed_at).toISOString() : null,
      pages,
      boxes: boxes.map((b) => ({ sticker_id: b.sticker_id, page: b.page, rect: { lx: b.lx, ly: b.ly, tx: b.tx, ty: b.ty } })),
      signer_fields: fields.length === 0 ? [] : fieldViews(fields, { now: deps.clock.now(), timeZone: timeZone! }),
      pdf_url: `/sign/api/set/${token}/document/${encodeURIComponent(r.ticket)}/pdf`,
    });
  }
  const signedTimes = s.rows.filter((r) => r.signed_at).map((r) => new Date(r.signed_at!).getTime());
  return {
    set: { uuid: s.set.uuid, name: s.set.name, status: s.set.status },
    signer: {
      signer_id: s.signer.signer_id,
      name: s.signer.name,
      email: s.signer.email,
      authority: s.signer.authority,
      status: s.signer.status,
      signed_at: s.signer.status === 'signed' && signedTimes.length ? new Date(Math.max(...signedTimes)).toISOString() : null,
      proof: signerProof(deps, s.signer.authority),
      rfc: s.signer.authority === 'SAT' ? s.signer.data : null,
      verified: proven,
      // An ordered flow that has not reached this signer yet: they may look, not act.
      due: running && (await isDue(deps.db, s)),
      // Asked to verify their identity on any document of the set: one verification for all of them.
      identity: await setIdentityState(deps, s),
    },
    signers: (await listSetSigners(deps.db, s.set.id)).map((x) => ({ name: x.name, status: x.status })),
    documents,
    language: explicitLanguage(s.set.workflow),
    sender: await senderInfo(deps, s.set.account_id),
    message: workflowMessage(s.set.workflow),
    default_language: deps.config.defaultLanguage,
  };
}
