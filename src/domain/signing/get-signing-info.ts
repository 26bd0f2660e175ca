// GET /sign/api/{token}: what the signer page (or an embedding application) needs to show: the
// document, its pages, this signer, the boxes to sign, and the state. Opening it marks the signer
// as having viewed the document and records the view in its history (record-view.ts).
import type { Deps } from '../deps.js';
import { storedPageSizes } from '../documents/page-sizes.js';
import { signersOf, stickersOf } from '../../store/signing-repo.js';
import { isProven, proofOf, provenByCode } from './one-time-code.js';
import { recordView } from './record-view.js';
import { listedSignerStatus, ownSignerStatus } from './signer-state.js';
import { endorsementWithdrawn, openSession } from './signing-session.js';
import type { SigningInfo } from '../../schemas/signing.js';
import { explicitLanguage } from './workflow-language.js';
import { senderInfo, workflowMessage } from './sender.js';
import { identityState } from '../identity/capture-evidence.js';
import { endorsementOfSigner } from '../../store/endorsements-repo.js';
import { fieldsOfSigner } from '../../store/signer-fields-repo.js';
import { accountTimeZone } from '../../store/workflow-repo.js';
import { fieldViews } from './signer-fields.js';

export async function getSigningInfo(deps: Deps, token: string, ip?: string): Promise<SigningInfo> {
  const s = await openSession(deps.db, token);
  await recordView(deps, s, ip);
  const endorsement = s.signer.role === 'endorser' ? await endorsementOfSigner(deps.db, s.signer.id) : undefined;
  // Withdrawn after openSession looked: the link shows nothing, as it will on the next request.
  if (endorsement?.status === 'withdrawn') {
    throw endorsementWithdrawn(endorsement.withdrawn_at);
  }
  const [boxes, signers, sender, pages, fields] = await Promise.all([
    stickersOf(deps.db, s.signer.id),
    signersOf(deps.db, s.document.id),
    senderInfo(deps, s.document.account_id),
    storedPageSizes(deps, s.document.original_sha256, { shared: true }),
    fieldsOfSigner(deps.db, s.signer.id),
  ]);
  return {
    document: { ticket: s.document.ticket, name: s.document.name, status: s.document.status },
    pages,
    signer: {
      signer_id: s.signer.signer_id,
      name: s.signer.name,
      email: s.signer.email,
      authority: s.signer.authority,
      status: ownSignerStatus(s.signer),
      signed_at: s.signer.signed_at?.toISOString() ?? null,
      // How identity is proven: the link itself, a one-time code sent by email, SMS or WhatsApp
      // (POST .../otp), or the signer's own SAT e.firma.
      proof: signerProof(deps, s.signer.authority),
      rfc: s.signer.authority === 'SAT' ? s.signer.data : null,
      // Proven by code: whether a code was verified recently enough to sign now.
      verified: s.signer.authority === 'EMAIL_LINK' || (provenByCode(s.signer.authority) && (await isProven(deps, s))),
      // Asked to verify their identity: what they sent, and whether it was decided.
      identity: await identityState(deps.db, s, deps.config.identity.provider?.name ?? null),
    },
    boxes: boxes.map((b) => ({ sticker_id: b.sticker_id, page: b.page, rect: { lx: b.lx, ly: b.ly, tx: b.tx, ty: b.ty } })),
    signers: signers.map((x) => ({
      name: x.name,
      status: x.signer_id === s.signer.signer_id ? ownSignerStatus(x) : listedSignerStatus(x),
    })),
    // The workflow's language when it sets one; else null, and the page follows the browser's.
    language: explicitLanguage(s.document.workflow),
    // Who asks: a signer should know before signing, as the invitation email says it.
    sender,
    message: workflowMessage(s.document.workflow),
    default_language: deps.config.defaultLanguage,
    endorsement: endorsement
      ? {
          endorsement_id: endorsement.endorsement_id,
          type: endorsement.type,
          text: endorsement.text,
          endorsee: { name: endorsement.endorsee_name },
          status: endorsement.status,
        }
      : null,
    // The fields this signer fills; a date shows today's date in the account's time zone.
    signer_fields:
      fields.length === 0
        ? []
        : fieldViews(fields, { now: deps.clock.now(), timeZone: await accountTimeZone(deps.db, s.document.account_id) }),
  };
}

/** How identity is proven; the SAT e.firma or an own certificate only where the operator installed their CAs. */
export function signerProof(deps: Pick<Deps, 'config'>, authority: string): SigningInfo['signer']['proof'] {
  if (authority === 'SAT' && deps.config.sat.trustedDer.length > 0) {
    return 'efirma';
  }
  if (authority === 'CERT' && deps.config.cert.trustedDer.length > 0) {
    return 'certificate';
  }
  if (authority === 'CSC' && deps.config.csc.providers.length > 0 && deps.config.csc.trustedDer.length > 0) {
    return 'remote';
  }
  return proofOf(authority);
}
