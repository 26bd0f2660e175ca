// POST /api/documentset/close {documentSet, workflow}: seals an OPEN set and starts its flow over all
// its documents. The set's signers are fixed here: the preloaded ones first, in preload order, then
// every other (authority, data) found on the documents, in document then sticker order. Each gets one
// set link; each document signer row is tied to its set signer. The documents become pending with
// the set's workflow, the expiration is scheduled, and the invitations go out: ONE per set signer,
// for all the documents where that person has a box (only the first signer when `ordered`). A person
// asked to verify their identity on any of their documents verifies before signing any of them.
import { AppError, invalid } from '../errors.js';
import type { Deps } from '../deps.js';
import { parseWorkflowSettings } from '../documents/workflow-settings.js';
import { appendHistory } from '../history/append-history.js';
import { newPublicId, newSigningToken } from '../ids.js';
import { expirationInstant, requireFutureExpiration } from '../workflows/effective-workflow.js';
import { scheduleExpiration } from '../workflows/start-document-flow.js';
import {
  closeSetRow,
  findFlowSet,
  setDocumentSigners,
  setFlowDocuments,
  startSetDocuments,
  type SetDocumentSigner,
  lockDocuments,
} from '../../store/set-flow-repo.js';
import { spreadSetIdentityRequirement } from '../../store/identity-repo.js';
import { insertSetSigner, linkSignerRows, listSetSigners, sealSetSigner } from '../../store/set-signers-repo.js';
import { inviteDueSetSigners } from './invite-set-signer.js';
import type { ClosedSet } from '../../schemas/sets.js';

export type { ClosedSet };

export async function closeDocumentSet(
  deps: Deps,
  o: { accountId: string; body: Record<string, unknown>; ip?: string },
): Promise<ClosedSet> {
  const uuid = o.body.documentSet ?? o.body.document_set;
  if (typeof uuid !== 'string' || uuid === '') {
    throw invalid('documentSet', 'required: the uuid of an OPEN document set');
  }
  const { settings, ignoredKeys } = parseWorkflowSettings(o.body.workflow ?? {}, { field: 'workflow', allowCamelCase: false });
  if (settings.cancel === true) {
    throw invalid(
      'workflow.cancel',
      'a set that is being closed cannot be cancelled; cancel a running set with POST /api/{uuid}/workflowSet',
    );
  }
  delete settings.cancel;

  return deps.db.transaction().execute(async (trx) => {
    // The set row first: create-document locks it too, so no document slips in while closing.
    const set = await findFlowSet(trx, { accountId: o.accountId, uuid }, true);
    if (!set) {
      throw new AppError('DOCUMENT_SET_NOT_FOUND', `documentSet: no document set ${uuid}`, { field: 'documentSet' });
    }
    if (set.status !== 'OPEN') {
      throw new AppError('DOCUMENT_SET_CLOSED', `the set is ${set.status}: only an OPEN set can be closed`, { status: set.status });
    }
    const now = deps.clock.now();
    requireFutureExpiration(settings, now, set.time_zone, 'workflow');

    const docs = (await setFlowDocuments(trx, set.id)).filter((d) => d.status === 'draft');
    // The documents before their signer rows: the lock order of viewing and signing.
    await lockDocuments(
      trx,
      docs.map((d) => d.id),
    );
    if (docs.length === 0) {
      throw new AppError('SET_NOT_READY', 'the set has no document: add documents with POST /developers/json and document_set first');
    }
    const rows = await setDocumentSigners(trx, set.id);
    const draftIds = new Set(docs.map((d) => d.id));
    const draftRows = rows.filter((r) => draftIds.has(r.document_id));
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
    const key = (s: { authority: string; data: string }) => `${s.authority}\u0000${s.data}`;
    const rowsOf = new Map<string, SetDocumentSigner[]>();
    for (const r of draftRows) {
      rowsOf.set(key(r), [...(rowsOf.get(key(r)) ?? []), r]);
    }
    const preloaded = await listSetSigners(trx, set.id);
    const boxless = preloaded.filter((p) => !rowsOf.has(key(p)));
    if (boxless.length > 0) {
      throw new AppError(
        'SET_NOT_READY',
        `every preloaded signer needs a box on some document; without one: ${boxless.map((p) => `${p.authority} ${p.data}`).join(', ')}`,
        { signers: boxless.map((p) => ({ signer_id: p.signer_id, authority: p.authority, data: p.data })) },
      );
    }

    // Preloaded first, in preload order; then the documents' signers in document, sticker order.
    const order: { id?: string; signerId?: string; authority: string; data: string; rows: SetDocumentSigner[] }[] = preloaded.map((p) => ({
      id: p.id,
      signerId: p.signer_id,
      authority: p.authority,
      data: p.data,
      rows: rowsOf.get(key(p))!,
    }));
    const seen = new Set(order.map(key));
    for (const r of draftRows) {
      if (!seen.has(key(r))) {
        seen.add(key(r));
        order.push({ authority: r.authority, data: r.data, rows: rowsOf.get(key(r))! });
      }
    }
    const signers: ClosedSet['signers'] = [];
    for (const [position, s] of order.entries()) {
      const name = s.rows.find((r) => r.name)?.name ?? null;
      const email = s.rows.find((r) => r.email)?.email ?? null;
      let id = s.id;
      let signerId = s.signerId;
      if (!id) {
        const { row } = await insertSetSigner(trx, {
          signerId: newPublicId(),
          setId: set.id,
          authority: s.authority,
          data: s.data,
          name,
          email,
          preloaded: false,
          at: now,
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
      const preload = preloaded.find((p) => p.id === id);
      signers.push({
        signer_id: signerId!,
        authority: s.authority,
        data: s.data,
        name: preload?.name ?? name,
        signer_url: `${deps.config.publicUrl}/sign/set/${token.token}`,
      });
    }

    const expiresAt = expirationInstant(settings, now, set.time_zone);
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
          signers: signers.length,
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
