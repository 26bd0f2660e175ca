// POST /api/documentset/close {documentSet, workflow}: seals an OPEN set and starts its flow over all
// its documents. The set's signers are fixed here: the preloaded ones first, in preload order, then
// every other (authority, data) found on the documents, in document then sticker order. Each gets one
// set link; each document signer row is tied to its set signer. The documents become pending with
// the set's workflow, the expiration is scheduled, and the invitations go out: ONE per set signer,
// for all the documents where that person has a box (only the first signer when `ordered`). A person
// asked to verify their identity on any of their documents verifies before signing any of them.
import type { Transaction } from 'kysely';
import { AppError, invalid } from '../errors.js';
import type { Deps } from '../deps.js';
import { readWorkflowSettings, type WorkflowSettings } from '../documents/workflow-settings.js';
import { appendHistory } from '../history/append-history.js';
import { newPublicId, newSigningToken } from '../ids.js';
import { expirationInstant, requireFutureExpiration } from '../workflows/effective-workflow.js';
import { scheduleExpiration } from '../workflows/start-document-flow.js';
import type { Database } from '../../store/schema.js';
import {
  closeSetRow,
  findFlowSet,
  setDocumentSigners,
  setFlowDocuments,
  startSetDocuments,
  type FlowSet,
  type SetDocumentSigner,
  lockDocuments,
} from '../../store/set-flow-repo.js';
import { spreadSetIdentityRequirement } from '../../store/identity-repo.js';
import { insertSetSigner, linkSignerRows, listSetSigners, sealSetSigner, type SetSignerRow } from '../../store/set-signers-repo.js';
import { inviteDueSetSigners } from './invite-set-signer.js';
import type { CloseSetBody, ClosedSet } from '../../schemas/sets.js';

export type { ClosedSet };

type Trx = Transaction<Database>;
/** One person of the set: a preloaded set signer (id known) or one found on the documents. */
type PlannedSigner = { id?: string; signerId?: string; authority: string; data: string; rows: SetDocumentSigner[] };

export async function closeDocumentSet(deps: Deps, o: { accountId: string; body: CloseSetBody; ip?: string }): Promise<ClosedSet> {
  const { settings, ignoredKeys } = closingSettings(o.body.workflow);
  return deps.db.transaction().execute(async (trx) => {
    // The set row first: create-document locks it too, so no document slips in while closing.
    const set = await lockOpenSet(trx, o.accountId, o.body.documentSet);
    const now = deps.clock.now();
    requireFutureExpiration(settings, now, set.time_zone, 'workflow');
    const draftRows = await lockDraftSigners(trx, set.id);
    const preloaded = await listSetSigners(trx, set.id);
    const signers = await fixSigners(trx, deps, { setId: set.id, plan: signerOrder(preloaded, draftRows), preloaded, now });
    const expiresAt = expirationInstant(settings, now, set.time_zone);
    await startSetFlow(trx, deps, { set, settings, now, expiresAt, signers: signers.length, ip: o.ip });
    return {
      status: 'success',
      uuid: set.uuid,
      set_status: 'CLOSED',
      expires_at: expiresAt.toISOString(),
      signers,
      ignored_keys: ignoredKeys,
    };
  });
}

/** The set's workflow, which cannot be cancelled before it runs. */
function closingSettings(workflow: CloseSetBody['workflow']): { settings: WorkflowSettings; ignoredKeys: string[] } {
  const { settings, ignoredKeys } = readWorkflowSettings(workflow ?? {}, { field: 'workflow', allowCamelCase: false });
  if (settings.cancel === true) {
    throw invalid(
      'workflow.cancel',
      'a set that is being closed cannot be cancelled; cancel a running set with POST /api/{uuid}/workflowSet',
    );
  }
  delete settings.cancel;
  return { settings, ignoredKeys };
}

async function lockOpenSet(trx: Trx, accountId: string, uuid: string): Promise<FlowSet> {
  const set = await findFlowSet(trx, { accountId, uuid }, true);
  if (!set) {
    throw new AppError('DOCUMENT_SET_NOT_FOUND', `documentSet: no document set ${uuid}`, { field: 'documentSet' });
  }
  if (set.status !== 'OPEN') {
    throw new AppError('DOCUMENT_SET_CLOSED', `the set is ${set.status}: only an OPEN set can be closed`, { status: set.status });
  }
  return set;
}

/** The signer rows of the set's draft documents, locked; every document must have one. */
async function lockDraftSigners(trx: Trx, setId: string): Promise<SetDocumentSigner[]> {
  const docs = (await setFlowDocuments(trx, setId)).filter((d) => d.status === 'draft');
  // The documents before their signer rows: the lock order of viewing and signing.
  await lockDocuments(
    trx,
    docs.map((d) => d.id),
  );
  if (docs.length === 0) {
    throw new AppError('SET_NOT_READY', 'the set has no document: add documents with POST /developers/json and document_set first');
  }
  const draftIds = new Set(docs.map((d) => d.id));
  const draftRows = (await setDocumentSigners(trx, setId)).filter((r) => draftIds.has(r.document_id));
  const bare = docs.filter((d) => !draftRows.some((r) => r.document_id === d.id));
  if (bare.length > 0) {
    throw new AppError(
      'SET_NOT_READY',
      `every document needs at least one signer; without signers: ${bare.map((d) => d.ticket).join(', ')}`,
      {
        documents: bare.map((d) => d.ticket),
      },
    );
  }
  return draftRows;
}

const personKey = (s: { authority: string; data: string }) => `${s.authority}\u0000${s.data}`;

/** Preloaded first, in preload order; then the documents' signers in document, sticker order. */
function signerOrder(preloaded: SetSignerRow[], draftRows: SetDocumentSigner[]): PlannedSigner[] {
  const rowsOf = new Map<string, SetDocumentSigner[]>();
  for (const r of draftRows) {
    rowsOf.set(personKey(r), [...(rowsOf.get(personKey(r)) ?? []), r]);
  }
  const boxless = preloaded.filter((p) => !rowsOf.has(personKey(p)));
  if (boxless.length > 0) {
    throw new AppError(
      'SET_NOT_READY',
      `every preloaded signer needs a box on some document; without one: ${boxless.map((p) => `${p.authority} ${p.data}`).join(', ')}`,
      { signers: boxless.map((p) => ({ signer_id: p.signer_id, authority: p.authority, data: p.data })) },
    );
  }
  const order: PlannedSigner[] = preloaded.map((p) => ({
    id: p.id,
    signerId: p.signer_id,
    authority: p.authority,
    data: p.data,
    rows: rowsOf.get(personKey(p))!,
  }));
  const seen = new Set(order.map(personKey));
  for (const r of draftRows) {
    if (!seen.has(personKey(r))) {
      seen.add(personKey(r));
      order.push({ authority: r.authority, data: r.data, rows: rowsOf.get(personKey(r))! });
    }
  }
  return order;
}

/** Each person becomes a set signer with a position and one set link, tied to their document rows. */
async function fixSigners(
  trx: Trx,
  deps: Deps,
  o: { setId: string; plan: PlannedSigner[]; preloaded: SetSignerRow[]; now: Date },
): Promise<ClosedSet['signers']> {
  const signers: ClosedSet['signers'] = [];
  for (const [position, s] of o.plan.entries()) {
    const name = s.rows.find((r) => r.name)?.name ?? null;
    const email = s.rows.find((r) => r.email)?.email ?? null;
    let id = s.id;
    let signerId = s.signerId;
    if (!id) {
      const { row } = await insertSetSigner(trx, {
        signerId: newPublicId(),
        setId: o.setId,
        authority: s.authority,
        data: s.data,
        name,
        email,
        preloaded: false,
        at: o.now,
      });
      id = row.id;
      signerId = row.signer_id;
    }
    const token = newSigningToken();
    await sealSetSigner(trx, { id, position, tokenHash: token.hash, tokenSealed: deps.secrets.seal(token.token), name, email });
    await linkSignerRows(
      trx,
      id,
      s.rows.map((r) => r.id),
    );
    await spreadSetIdentityRequirement(trx, id);
    const preload = o.preloaded.find((p) => p.id === id);
    signers.push({
      signer_id: signerId!,
      authority: s.authority,
      data: s.data,
      name: preload?.name ?? name,
      signer_url: `${deps.config.publicUrl}/sign/set/${token.token}`,
    });
  }
  return signers;
}

/** The set CLOSED, its documents pending, the expiration scheduled and the due invitations sent. */
async function startSetFlow(
  trx: Trx,
  deps: Deps,
  o: { set: FlowSet; settings: WorkflowSettings; now: Date; expiresAt: Date; signers: number; ip?: string },
): Promise<void> {
  const { set, settings, now, expiresAt } = o;
  const generation = await closeSetRow(trx, { id: set.id, at: now, workflow: settings, expiresAt });
  const started = await startSetDocuments(trx, { setId: set.id, at: now, workflow: settings, expiresAt });
  for (const documentId of started) {
    await appendHistory(trx, {
      documentId,
      at: now,
      action: 'flow_started',
      actor: 'account',
      ip: o.ip ?? null,
      details: {
        document_set: set.uuid,
        documents: started.length,
        signers: o.signers,
        expires_at: expiresAt.toISOString(),
        workflow: settings,
      },
    });
  }
  await scheduleExpiration(trx, { scope: 'set', id: set.id, at: expiresAt });
  await inviteDueSetSigners(
    trx,
    deps,
    {
      ...set,
      status: 'CLOSED',
      workflow: settings as Record<string, unknown>,
      closed_at: now,
      flow_started_at: now,
      expires_at: expiresAt,
      flow_generation: generation,
    },
    { resend: false },
  );
}
