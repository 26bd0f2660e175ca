// The statements one creation sends to PostgreSQL, counted on the connection: each is a round
// trip and a parse, plan and execute on the server, and at hundreds of documents a second they are
// most of a creation's cost (docs/performance.md, "Where a creation's time goes"). A new statement
// on this path should be a decision, not an accident: this list says which ones there are.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { A4, makePdf } from '../helpers/pdfs.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { insertPackage } from '../../src/store/packages-repo.js';

let s: TestServer;
let pdf: string;
const sent: string[] = [];
const query = pg.Client.prototype.query;

beforeAll(async () => {
  // Every statement of this process's pools goes through Client#query (Kysely's driver included);
  // a prepared one (store/prepared.ts) arrives as {name, text, values}.
  pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
    const a = args[0] as string | { name?: string; text?: string };
    const text = typeof a === 'string' ? a : (a?.text ?? '');
    const named = typeof a === 'object' && a?.name ? 'prepared: ' : '';
    sent.push(
      named +
        text
          .replace(/^\/\* prepared \w+ \*\/ /, '')
          .replace(/\s+/g, ' ')
          .trim(),
    );
    return (query as (...a: unknown[]) => unknown).apply(this, args);
  } as typeof query;
  s = await startTestServer();
  pdf = (await makePdf([A4])).toString('base64');
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

/** The statements by their first words (`select "a"."id"…` is the key lookup, `with kind_packages as… insert into documents…` the creation), each prepared. */
const shapes = (statements: string[]) =>
  statements.map((t) =>
    t.startsWith('prepared: select "a"."id" as "accountId"')
      ? 'key'
      : t.startsWith('prepared: with kind_packages as') && t.includes('insert into documents')
        ? 'insert'
        : t.split(' ').slice(0, 3).join(' '),
  );

describe('the statements of one creation', () => {
  it('a PDF with two signers: the key, and one statement that writes it all', async () => {
    expect(shapes(await statementsOf(twoSigners))).toEqual(['key', 'insert']);
    // What that one statement wrote: rows, the history's first link, the consumption.
    const row = await s.deps.db
      .selectFrom('documents as d')
      .select((eb) => [
        'd.history_count',
        eb.selectFrom('signers').whereRef('document_id', '=', 'd.id').select(eb.fn.countAll<string>().as('n')).as('signers'),
        eb.selectFrom('stickers').whereRef('document_id', '=', 'd.id').select(eb.fn.countAll<string>().as('n')).as('stickers'),
        eb.selectFrom('consumption').whereRef('document_id', '=', 'd.id').select(eb.fn.countAll<string>().as('n')).as('consumed'),
      ])
      .orderBy('d.id', 'desc')
      .executeTakeFirstOrThrow();
    expect(row).toEqual({ history_count: 1, signers: '2', stickers: '2', consumed: '1' });
  });

  it('an account with a package: the same two, the piece taken by the insert', async () => {
    const { creds, client } = await s.newAccount('With a package');
    const accountId = (await s.deps.db.selectFrom('accounts').select('id').where('web_id', '=', creds.webId).executeTakeFirstOrThrow()).id;
    const now = Date.now();
    await insertPackage(s.deps.db, {
      publicId: 'pkg-statements',
      accountId,
      kind: 'documents',
      pieces: 5,
      validFrom: new Date(now - 86_400_000),
      validTo: new Date(now + 86_400_000),
    });
    const create = () => client.createDocument({ b64_doc: pdf, name: 'Contrato', stickers: [] });
    expect(shapes(await statementsOf(create))).toEqual(['key', 'insert']);
    const left = await s.deps.db.selectFrom('packages').select('used').where('public_id', '=', 'pkg-statements').executeTakeFirstOrThrow();
    expect(left.used).toBe(2);
  });
});
