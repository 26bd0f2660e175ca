// POST /api/{documentId}/signer/{signerId}/update: corrects a signer who has not signed yet
// (authority, data, name, email). The signing link changes: the old one stops working at once,
// and the corrected signer is invited again with the new one when the flow has invited them.
// Signers of a closed set's documents are fixed (interface.md, set rule 3).
import { AppError, invalid } from '../errors.js';
import type { Deps } from '../deps.js';
import { AUTHORITIES, type Authority, isAuthority, isEmail, normalizeSignerData } from '../documents/authorities.js';
import { appendHistory } from '../history/append-history.js';
import { newSigningToken } from '../ids.js';
import { removeWorkflowRemindJob } from '../../jobs/payloads/workflow-remind.js';
import type { Transaction } from 'kysely';
import type { Database } from '../../store/schema.js';
import {
  type FlowDocument,
  type FlowSigner,
  findFlowDocument,
  flowSigners,
  replaceSigner,
  signerRowOfSticker,
} from '../../store/workflow-repo.js';
import { findFlowSet } from '../../store/set-flow-repo.js';
import { inviteSigner } from './invite-signer.js';
import type { SignerUpdateBody, SignerUpdateResult } from '../../schemas/workflows.js';

const EDITABLE = ['authority', 'data', 'name', 'email'] as const;

type Trx = Transaction<Database>;
type Changes = { authority?: string; data?: string; name?: string | null; email?: string | null };
/** The corrected identity: the authority and data checked together, as on create. */
type Corrected = { authority: Authority; data: string; name: string | null; email: string | null };

export async function updateSigner(
  deps: Deps,
  o: { accountId: string; ticket: string; signerId: string; body: SignerUpdateBody; ip?: string },
): Promise<SignerUpdateResult> {
  const changes = readChanges(o.body);
  return deps.db.transaction().execute(async (trx) => {
    const doc = await lockDocument(trx, o.accountId, o.ticket);
    const signers = await flowSigners(trx, doc.id);
    const signer = signers.find((s) => s.signer_id === o.signerId) ?? (await signerOfSticker(trx, doc.id, o.signerId, signers));
    if (!signer) {
      throw new AppError('SIGNER_NOT_FOUND', `no signer ${o.signerId} on document ${o.ticket}`);
    }
    requireEditable(doc, signer);
    const after = corrected(changes, signer, signers);
    const token = newSigningToken();
    const updated = await replaceSigner(trx, {
      id: signer.id,
      ...after,
      tokenHash: token.hash,
      tokenSealed: deps.secrets.seal(token.token),
    });
    const before = { authority: signer.authority, data: signer.data, name: signer.name, email: signer.email };
    await appendHistory(trx, {
      documentId: doc.id,
      at: deps.clock.now(),
      action: 'signer_updated',
      actor: 'account',
      ip: o.ip ?? null,
      details: { signer_id: signer.signer_id, before, after, link_replaced: true },
    });
    let invited = false;
    if (doc.status === 'pending' && doc.flow_started_at && !doc.set_id && signer.invited_at) {
      // Invited under the old identity: the corrected person gets the invitation with the new link.
      await removeWorkflowRemindJob(trx, { scope: 'document', signerRowId: signer.id });
      await inviteSigner(trx, deps, { document: doc, signer: updated, reminder: false });
      invited = true;
    }
    return {
      status: 'success' as const,
      signer: { signer_id: signer.signer_id, ...after, status: updated.status, signer_url: `${deps.config.publicUrl}/sign/${token.token}` },
      invited,
    };
  });
}

/** The document, locked after its set (if any), as adding and closing take them. */
async function lockDocument(trx: Trx, accountId: string, ticket: string): Promise<FlowDocument> {
  const found = await findFlowDocument(trx, { accountId, ticket });
  if (!found) {
    throw new AppError('DOCUMENT_NOT_FOUND', `no document ${ticket}`);
  }
  if (found.set_id) {
    // The set before the document: a close cannot build its signers from this document while the
    // correction is half made.
    await findFlowSet(trx, { id: found.set_id }, true);
  }
  return (await findFlowDocument(trx, { id: found.id }, true))!;
}

function requireEditable(doc: FlowDocument, signer: FlowSigner): void {
  if (signer.status === 'signed' || signer.status === 'rejected') {
    throw new AppError('SIGNER_NOT_EDITABLE', `the signer has already ${signer.status === 'signed' ? 'signed' : 'rejected'} the document`, {
      status: signer.status,
    });
  }
  if (doc.status !== 'pending' && doc.status !== 'draft') {
    throw new AppError('SIGNER_NOT_EDITABLE', `the document is ${doc.status}`, { status: doc.status });
  }
  if (doc.set_id && doc.status !== 'draft') {
    throw new AppError('SIGNER_NOT_EDITABLE', 'the document belongs to a closed set: its signers are fixed');
  }
}

/**
 * The signer after the changes. The authority is checked here, not by the schema: an authority left
 * out keeps the stored one, and the data is judged by the authority it ends up with.
 */
function corrected(changes: Changes, signer: FlowSigner, signers: FlowSigner[]): Corrected {
  const authority = changes.authority ?? signer.authority;
  if (!isAuthority(authority)) {
    throw invalid('authority', `expected one of ${AUTHORITIES.join(', ')}`);
  }
  const rawData = changes.data ?? (changes.authority && changes.authority !== signer.authority ? undefined : signer.data);
  if (rawData === undefined) {
    throw invalid('data', `required when the authority changes: the signer's identifier for ${authority}`);
  }
  const data = normalizeSignerData(authority, rawData);
  if (!data.ok) {
    throw invalid('data', data.rule);
  }
  if (signers.some((s) => s.id !== signer.id && s.authority === authority && s.data === data.value)) {
    throw new AppError('SIGNER_CONFLICT', `the document already has a signer ${authority} ${data.value}`);
  }
  const isMail = authority === 'EMAIL' || authority === 'EMAIL_LINK';
  // Without an explicit email: an email authority's address is its data; otherwise the old
  // address stays only if it was not the identity being corrected away.
  const identityChanged = authority !== signer.authority || data.value !== signer.data;
  const keptEmail = identityChanged && signer.email === signer.data ? null : signer.email;
  const email = changes.email !== undefined ? changes.email : isMail ? data.value : keptEmail;
  const name = changes.name !== undefined ? changes.name : signer.name;
  return { authority, data: data.value, name, email: email ?? null };
}

/** The keys to change; the schema checked their types and lengths. */
function readChanges(body: SignerUpdateBody): Changes {
  const out: Changes = {};
  for (const k of ['authority', 'data'] as const) {
    const v = body[k];
    if (v !== undefined) {
      if (v.trim() === '') {
        throw invalid(k, 'expected a non-empty string');
      }
      out[k] = v;
    }
  }
  if (body.name !== undefined) {
    out.name = body.name;
  }
  if (body.email !== undefined) {
    if (body.email !== null && !isEmail(body.email)) {
      throw invalid('email', 'must be an email address');
    }
    out.email = body.email?.toLowerCase() ?? null;
  }
  if (Object.keys(out).length === 0) {
    throw invalid('body', `nothing to change: send at least one of ${EDITABLE.join(', ')}`);
  }
  return out;
}

async function signerOfSticker(
  trx: Parameters<typeof flowSigners>[0],
  documentId: string,
  stickerId: string,
  signers: Awaited<ReturnType<typeof flowSigners>>,
) {
  // decisions.md: paths naming a {signerId} accept a sticker_id of that signer too.
  const rowId = await signerRowOfSticker(trx, documentId, stickerId);
  return signers.find((s) => s.id === rowId);
}
