// POST /sign/api/set/{token}/certificate/prepare and /certificate/finish: a CERT signer signs every
// document of a set in one visit with their own certificate. The browser opens the key once and runs
// the two steps for each document in turn, as the SAT's set path does (sat-set-signing.ts); each step
// is the per-document one (cert-signing.ts) on that document's signer row, so the set's flow moves
// with each signature exactly as with the other authorities.
import type { Deps } from '../deps.js';
import { finishCertSignature, prepareCertSignature } from '../signing/cert/cert-signing.js';
import type { CertPrepared, SetCertFinishBody, SetCertPrepareBody } from '../../schemas/cert-signing.js';
import type { SetSignResult } from '../../schemas/signing.js';
import { openRowToken, readDocumentTicket, refuseUnknownSetFields, setAfterSignature } from './sat-set-signing.js';

export async function prepareSetCertSignature(deps: Deps, o: { token: string; body: SetCertPrepareBody }): Promise<CertPrepared> {
  const { document_ticket, ...body } = o.body;
  const rowTokenOf = await openRowToken(deps, o.token, readDocumentTicket(document_ticket), 'CERT', 'the certificate');
  // One map may name fields of every document of the set (the page keeps one), as for the SAT.
  await refuseUnknownSetFields(deps, o.token, body.field_values);
  return prepareCertSignature(deps, { token: rowTokenOf, body, unknownFieldsChecked: true });
}

export async function finishSetCertSignature(
  deps: Deps,
  o: { token: string; body: SetCertFinishBody; ip?: string },
): Promise<SetSignResult> {
  const { document_ticket, ...body } = o.body;
  const rowTokenOf = await openRowToken(deps, o.token, readDocumentTicket(document_ticket), 'CERT', 'the certificate');
  const signed = await finishCertSignature(deps, { token: rowTokenOf, body, ip: o.ip });
  return setAfterSignature(deps, o.token, signed.signed_at);
}
