// A SAT signer signs every document of a set in one visit: the two e.firma steps once per document
// on the set link (the browser keeps the key; here node:crypto signs as the page does with
// WebCrypto). Each document gets its own e.firma signature, valid and trusted in pdfsig; the set
// completes; a document of another set or one already signed is refused by name; rejecting the set
// takes the link alone.
import { sign } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { A4, makePdf } from '../helpers/pdfs.js';
import { type SatCredential, type SatTestPki, createSatTestPki } from '../helpers/sat-pki.js';
import { type TestServer, startTestServer } from '../helpers/server.js';
import { pdfsig } from '../helpers/validators.js';

const MARIA = { rfc: 'GOLM800101AB1', curp: 'GOLM800101MDFMPR09', name: 'MARIA GOMEZ LOPEZ' };

let s: TestServer;
let sat: SatTestPki;
let maria: SatCredential;
let pdf: string;

beforeAll(async () => {
  sat = await createSatTestPki();
  s = await startTestServer({ env: { SELLO_SAT_TRUST_PEM: sat.trustPemPath } });
  pdf = (await makePdf([A4])).toString('base64');
  maria = await sat.issue(MARIA);
}, 60_000);
afterAll(async () => {
  await s?.close();
  sat?.dispose();
});

async function call(path: string, body?: unknown) {
  const res = await fetch(s.baseUrl + path, {
    method: body === undefined ? 'GET' : 'POST',
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, json: await res.json() };
}

/** A closed set of `names` documents where María (SAT) has a box on each; her set token. */
async function satSet(names: string[]) {
  const set = await s.client.createDocumentSet({ name: 'Alta de cliente' });
  const tickets: string[] = [];
  for (const name of names) {
    const doc = await s.client.createDocument({
      b64_doc: pdf,
      name,
      document_set: set.uuid,
      stickers: [{ authority: 'SAT', data: MARIA.rfc, name: 'María Gómez', page: 0, rect: { lx: 60, ly: 60, tx: 280, ty: 130 } }],
    });
    tickets.push(doc.document_ticket);
  }
  const closed = await s.client.closeDocumentSet(set.uuid, { language: 'es' });
  const url = closed.signers.find((x) => x.data === MARIA.rfc)!.signer_url;
  return { set, tickets, token: url.split('/').pop()! };
}

const prepare = (token: string, ticket: string) =>
  call(`/sign/api/set/${token}/sat/prepare`, { certificate: maria.cer.toString('base64'), consent: true, document_ticket: ticket });
const finish = (token: string, ticket: string, prepared: { preparation_id: string; signed_attributes: string }) =>
  call(`/sign/api/set/${token}/sat/finish`, {
    document_ticket: ticket,
    preparation_id: prepared.preparation_id,
    signature: sign('sha256', Buffer.from(prepared.signed_attributes, 'base64'), maria.privateKey).toString('base64'),
  });

describe('a SAT signer on a set link', () => {
  it('signs each document with the e.firma, one prepare and finish per document; the set completes', async () => {
    const { set, tickets, token } = await satSet(['Contrato', 'Anexo']);
    const info = await call(`/sign/api/set/${token}`);
    expect(info.json.signer).toMatchObject({ authority: 'SAT', proof: 'efirma' });
    for (const [i, ticket] of tickets.entries()) {
      const prepared = await prepare(token, ticket);
      expect(prepared.status, JSON.stringify(prepared.json)).toBe(200);
      const done = await finish(token, ticket, prepared.json);
      expect(done.status, JSON.stringify(done.json)).toBe(200);
      expect(done.json.set_status).toBe(i === tickets.length - 1 ? 'COMPLETED' : 'CLOSED');
      expect(done.json.documents.find((d: { document_ticket: string }) => d.document_ticket === ticket)).toMatchObject({
        status: 'completed',
        signer_status: 'signed',
      });
    }
    expect((await s.client.getDocumentSet(set.uuid)).status).toBe('COMPLETED');
    for (const ticket of tickets) {
      const file = (await s.client.downloadDocument('original', ticket)).bytes;
      const checked = await pdfsig(file, sat.rootPem);
      expect(checked.signatures, checked.output).toHaveLength(1);
      expect(checked.signatures[0]).toMatchObject({ valid: true, trusted: true, commonName: MARIA.name });
      expect((await s.client.signatureReport(ticket)).firmas[0]).toMatchObject({ certType: 'SAT', validSignature: true });
    }
    // Done: nothing is left to prepare.
    const again = await prepare(token, tickets[0]);
    expect([again.status, again.json.error.code, again.json.error.details]).toEqual([
      409,
      'DOCUMENT_NOT_SIGNABLE',
      { status: 'COMPLETED' },
    ]);
  });

  it('a drawn signature posted to the set link for a SAT signer is refused with the e.firma steps named', async () => {
    const { tickets, token } = await satSet(['Contrato']);
    const r = await call(`/sign/api/set/${token}/sign`, { signature: { type: 'typed', text: 'María Gómez' }, consent: true });
    expect([r.status, r.json.error.code]).toEqual([409, 'SAT_EFIRMA_REQUIRED']);
    expect(r.json.error.details).toMatchObject({
      prepare: '/sign/api/set/{token}/sat/prepare',
      finish: '/sign/api/set/{token}/sat/finish',
    });
    const listed = (await s.client.listDocuments()).documents.find((d) => d.document_ticket === tickets[0])!;
    expect(listed.signers[0].status).not.toBe('signed');
  });

  it('names the document_ticket when it is missing or not of this set', async () => {
    const { token } = await satSet(['Contrato']);
    const missing = await call(`/sign/api/set/${token}/sat/prepare`, { certificate: maria.cer.toString('base64'), consent: true });
    expect([missing.status, missing.json.error.code, missing.json.error.details.field]).toEqual([400, 'INVALID_INPUT', 'document_ticket']);
    const other = await s.client.createDocument({
      b64_doc: pdf,
      stickers: [{ authority: 'SAT', data: MARIA.rfc, page: 0, rect: { lx: 60, ly: 60, tx: 280, ty: 130 } }],
    });
    const foreign = await prepare(token, other.document_ticket);
    expect([foreign.status, foreign.json.error.code]).toEqual([404, 'DOCUMENT_NOT_FOUND']);
  });

  it('rejects the set with the link alone', async () => {
    const { set, token } = await satSet(['Contrato', 'Anexo']);
    const r = await call(`/sign/api/set/${token}/reject`, { reason: 'No es mi contrato' });
    expect(r.status, JSON.stringify(r.json)).toBe(200);
    expect(r.json.set_status).toBe('REJECTED');
    expect((await s.client.getDocumentSet(set.uuid)).status).toBe('REJECTED');
  });
});
