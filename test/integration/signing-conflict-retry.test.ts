// The signing use cases run their transaction again when PostgreSQL rolled it back for a concurrent
// one (40P01 deadlock, 40001 serialization): whoever reaches them (the signing API, a set link)
// gets the retry, and a lost race costs a retry, never a 500.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Deps } from '../../src/domain/deps.js';
import { rejectDocument } from '../../src/domain/signing/reject-document.js';
import { signDocument } from '../../src/domain/signing/sign-document.js';
import { A4, makePdf } from '../helpers/pdfs.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { signaturePng } from '../helpers/validators.js';

let s: TestServer;
let pdf: string;

beforeAll(async () => {
  s = await startTestServer();
  pdf = (await makePdf([A4])).toString('base64');
});
afterAll(() => s?.close());

/** The deps, with the next `lost` transactions aborted by PostgreSQL as the loser of a race is. */
function losingRaces(lost: number, code: string): { deps: Deps; attempts: () => number } {
  let left = lost;
  let attempts = 0;
  const real = s.deps.db;
  const db = new Proxy(real, {
    get(target, prop) {
      if (prop === 'transaction') {
        return () => {
          attempts++;
          if (left > 0) {
            left--;
            return {
              execute: async () => {
                throw Object.assign(new Error('deadlock detected'), { code });
              },
            };
          }
          return target.transaction();
        };
      }
      const value = Reflect.get(target, prop, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
  return { deps: { ...s.deps, db }, attempts: () => attempts };
}

async function signerToken(): Promise<{ ticket: string; token: string }> {
  const doc = await s.client.createDocument({
    b64_doc: pdf,
    stickers: [{ authority: 'EMAIL_LINK', data: 'ana@example.com', page: 0, rect: { lx: 60, ly: 60, tx: 260, ty: 130 } }],
  });
  return { ticket: doc.document_ticket, token: doc.stickers[0].signer_url.split('/').pop()! };
}

async function statusOf(ticket: string): Promise<string> {
  const listed = (await s.client.listDocuments()).documents.find((d) => d.document_ticket === ticket)!;
  return `${listed.status}/${listed.signers[0].status}`;
}

const drawn = { type: 'drawn' as const, image: `data:image/png;base64,${signaturePng().toString('base64')}` };

describe('signing through a lost race', () => {
  it('signDocument runs again after a deadlock and signs once', async () => {
    const { ticket, token } = await signerToken();
    const race = losingRaces(1, '40P01');
    const r = await signDocument(race.deps, { token, body: { signature: drawn, consent: true } });
    expect([r.status, r.document_status, race.attempts()]).toEqual(['signed', 'completed', 2]);
    expect(await statusOf(ticket)).toBe('completed/signed');
  });

  it('rejectDocument runs again after a serialization failure', async () => {
    const { ticket, token } = await signerToken();
    const race = losingRaces(1, '40001');
    const r = await rejectDocument(race.deps, { token, body: { reason: 'Wrong amount' } });
    expect([r.status, race.attempts()]).toEqual(['rejected', 2]);
    expect(await statusOf(ticket)).toBe('rejected/rejected');
  });

  it('gives up after three lost races, with nothing done: the signer can still sign', async () => {
    const { ticket, token } = await signerToken();
    const race = losingRaces(3, '40P01');
    await expect(signDocument(race.deps, { token, body: { signature: drawn, consent: true } })).rejects.toMatchObject({ code: '40P01' });
    expect(race.attempts()).toBe(3);
    expect(await statusOf(ticket)).toBe('pending/pending');
    const r = await signDocument(s.deps, { token, body: { signature: drawn, consent: true } });
    expect(r.status).toBe('signed');
  });
});
