// A transaction PostgreSQL rolls back for losing a deadlock is run again, not answered with a 500.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isTransientConflict, retryTransientConflict } from '../../src/store/transient-conflict.js';
import { createTestDatabase } from '../helpers/server.js';

let db: Awaited<ReturnType<typeof createTestDatabase>>;
let pool: pg.Pool;

beforeAll(async () => {
  db = await createTestDatabase();
  pool = new pg.Pool({ connectionString: db.url, max: 4 });
  await pool.query('create table pair (id int primary key, n int not null)');
  await pool.query('insert into pair values (1, 0), (2, 0)');
});

afterAll(async () => {
  await pool.end();
  await db.drop();
});

/** Locks `first`, waits until the other transaction holds its first row too, then wants `second`. */
async function crossed(first: number, second: number, bothHoldOne: Promise<void>, holding: () => void, attempts: { n: number }) {
  attempts.n++;
  const c = await pool.connect();
  try {
    await c.query('begin');
    await c.query('update pair set n = n + 1 where id = $1', [first]);
    holding();
    await bothHoldOne;
    await c.query('update pair set n = n + 1 where id = $1', [second]);
    await c.query('commit');
  } catch (err) {
    await c.query('rollback');
    throw err;
  } finally {
    c.release();
  }
}

function barrier(parties: number): { arrive: () => void; all: Promise<void> } {
  let left = parties;
  let open!: () => void;
  const all = new Promise<void>((r) => {
    open = r;
  });
  return {
    arrive: () => {
      left--;
      if (left === 0) {
        open();
      }
    },
    all,
  };
}

describe('retryTransientConflict', () => {
  it('a deadlock between two transactions: PostgreSQL aborts one (40P01), the retry commits it, both effects land once', async () => {
    const b = barrier(2);
    const a = { n: 0 };
    const z = { n: 0 };
    // Only the first attempt of each waits at the barrier; a retry runs alone.
    const first = retryTransientConflict(() => crossed(1, 2, a.n === 0 ? b.all : Promise.resolve(), b.arrive, a));
    const second = retryTransientConflict(() => crossed(2, 1, z.n === 0 ? b.all : Promise.resolve(), b.arrive, z));
    await Promise.all([first, second]);
    expect(a.n + z.n).toBe(3);
    const rows = (await pool.query('select id, n from pair order by id')).rows;
    expect(rows).toEqual([
      { id: 1, n: 2 },
      { id: 2, n: 2 },
    ]);
  });

  it('other errors are not retried, and a conflict that persists ends after the attempts given', async () => {
    let calls = 0;
    await expect(
      retryTransientConflict(async () => {
        calls++;
        throw Object.assign(new Error('unique'), { code: '23505' });
      }),
    ).rejects.toThrow('unique');
    expect(calls).toBe(1);
    calls = 0;
    await expect(
      retryTransientConflict(async () => {
        calls++;
        throw Object.assign(new Error('deadlock detected'), { code: '40P01' });
      }, 3),
    ).rejects.toThrow('deadlock');
    expect(calls).toBe(3);
    expect(isTransientConflict(Object.assign(new Error('x'), { code: '40001' }))).toBe(true);
    expect(isTransientConflict(null)).toBe(false);
  });
});
