// POST /sign/api/set/{token}/sat/prepare and /sat/finish: a SAT signer signs every document of a
// set in one visit with their own e.firma. The browser decrypts the key once and runs the two
// steps for each document in turn; each step is the per-document one (prepare-sat-signature.ts,
// finish-sat-signature.ts) on that document's signer row, so the set's flow moves with each
// signature exactly as with the other authorities (sign-set.ts).
import { AppError, invalid } from '../errors.js';
import type { Deps } from '../deps.js';
import { finishWith, readSignatureValue } from '../signing/sat/finish-sat-signature.js';
import { prepareWith, readCertificate } from '../signing/sat/prepare-sat-signature.js';
import type { SatPrepared, SetSatFinishBody, SetSatPrepareBody } from '../../schemas/sat-signing.js';
import type { SetSignResult } from '../../schemas/signing.js';
import { openSetSession, requireSetActionable, rowToken } from './set-signing-session.js';
import type { FieldValues } from '../../schemas/signer-fields.js';
import { fieldsOfSigner } from '../../store/signer-fields-repo.js';
import { refuseUnknownFields } from '../signing/signer-fields.js';

async function refuseUnknownSetFields(deps: Deps, token: string, values: FieldValues | undefined): Promise<void> {
  if (values === undefined) {
    return;
  }
  const known = new Set<string>();
  for (const row of (await openSetSession(deps.db, token)).rows) {
    for (const f of await fieldsOfSigner(deps.db, row.id)) {
      known.add(f.field_id);
    }
  }
  refuseUnknownFields(values, known);
}

/** The document_ticket of a set SAT request, trimmed; INVALID_INPUT naming it when blank. */
export function readDocumentTicket(ticket: string): string {
  if (ticket.trim() === '') {
    throw invalid('document_ticket', 'required: the ticket of the document of the set to sign');
  }
  return ticket.trim();
}

/** The signer row of `ticket` among those still waiting for this person's signature. */
async function openRowToken(deps: Deps, token: string, ticket: string): Promise<string> {
  const s = await openSetSession(deps.db, token);
  if (s.signer.authority !== 'SAT') {
    throw new AppError('INVALID_STATE', `the e.firma is for signers of the SAT authority; this signer's is ${s.signer.authority}`);
  }
  const open = await requireSetActionable(deps.db, s);
  const row = open.find((r) => r.ticket === ticket);
  if (!row) {
    const known = s.rows.some((r) => r.ticket === ticket);
    throw known
      ? new AppError('ALREADY_SIGNED', `document ${ticket} of this set does not wait for your signature any more`)
      : new AppError('DOCUMENT_NOT_FOUND', `document_ticket: no document ${ticket} in this set has a box of yours`, {
          field: 'document_ticket',
        });
  }
  return rowToken(deps, row);
}

export async function prepareSetSatSignature(deps: Deps, o: { token: string; body: SetSatPrepareBody }): Promise<SatPrepared> {
  const ticket = readDocumentTicket(o.body.document_ticket);
  const certificate = readCertificate(o.body.certificate);
  const rowTokenOf = await openRowToken(deps, o.token, ticket);
  // One map may name fields of every document of the set (the page keeps one): keys of this
  // person's other documents are let through here, keys naming none of their fields refused.
  await refuseUnknownSetFields(deps, o.token, o.body.field_values);
  return prepareWith(deps, {
    token: rowTokenOf,
    certificate,
    language: o.body.language,
    fieldValues: o.body.field_values,
    unknownFieldsChecked: true,
  });
}

export async function finishSetSatSignature(deps: Deps, o: { token: string; body: SetSatFinishBody; ip?: string }): Promise<SetSignResult> {
  const ticket = readDocumentTicket(o.body.document_ticket);
  const signature = readSignatureValue(o.body.signature);
  const rowTokenOf = await openRowToken(deps, o.token, ticket);
  const signed = await finishWith(deps, { token: rowTokenOf, preparationId: o.body.preparation_id, signature, ip: o.ip });
  const after = await openSetSession(deps.db, o.token);
  return {
    status: 'signed',
    signed_at: signed.signed_at,
    set_status: after.set.status,
    documents: after.rows.map((r) => ({ document_ticket: r.ticket, status: r.document_status, signer_status: r.status })),
  };
}
