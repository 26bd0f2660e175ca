// The statements one creation sends to PostgreSQL, counted on the connection: each is a round
// trip and a parse, plan and execute on the server, and at hundreds of documents a second they are
// most of a creation's cost (docs/performance.md, "Where a creation's time goes"). A new statement
// on this path should be a decision, not an accident: this list says which ones there are.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { A4, makePdf } from '../helpers/pdfs.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

let s: TestServer;
let pdf: string;
const sent: string[] = [];
const query = pg.Client.prototype.query;

beforeAll(async () => {
  s = await startTestServer();
  pdf = (await makePdf([A4])).toString('base64');
  // Every statement of this process's pools goes through Client#query (Kysely's driver included).
  pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
    const text = typeof args[0] === 'string' ? args[0] : (args[0] as { text?: string })?.text;
    sent.push(String(text ?? '').replace(/\s+/g, ' ').trim());
    return (query as (...a: unknown[]) => unknown).apply(this, args);
  } as typeof query;
});
afterAll(async () => {
  pg.Client.prototype.query = query;
  await s?.close();
});

async function statementsOf(create: () => Promise<unknown>): Promise<string[]> {
  await create(); // the first request of a process also reads what is cached after it
  sent.length = 0;
  await create();
  return [...sent];
}

const box = { lx: 50, ly: 50, tx: 250, ty: 120 };
const twoSigners = () =>
  s.client.createDocument({
    b64_doc: pdf,
    name: 'Contrato',
    stickers: [
      { authority: 'EMAIL_LINK', data: 'ana@example.com', page: 0, rect: box },
      { authority: 'EMAIL_LINK', data: 'luis@example.com', page: 0, rect: { ...box, ly: 200, ty: 270 } },
    ],
  });

describe('the statements of one creation', () => {
  it('a PDF with two signers: the key, the account, then one transaction of few statements', async () => {
    const statements = await statementsOf(twoSigners);
    console.log(statements.map((t) => t.slice(0, 110)).join('\n'));
    expect(statements.length).toBeLessThanOrEqual(12);
  });
});
