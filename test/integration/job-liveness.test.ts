// Which job runners count as dead, and what becomes of their jobs (store/job-workers-repo.ts), on a
// real PostgreSQL: each runner registers on a session of its own, as the service does. Time passes
// on the database's clock only: a runner's silence is made by moving its last heartbeat back, so
// nothing here sleeps or depends on the date.
import { randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../../src/store/db.js';
import { openDb } from '../../src/store/db.js';
import { beatWorker, deregisterWorker, reapDeadWorkers, registerWorker, type WorkerIdentity } from '../../src/store/job-workers-repo.js';
import { createTestDatabase } from '../helpers/server.js';

let database: { url: string; drop: () => Promise<void> };
let db: Db;
let closeDb: () => Promise<void>;
const sessions: pg.Client[] = [];

beforeAll(async () => {
  database = await createTestDatabase();
  const handle = openDb(database.url, 4);
  db = handle.db;
  closeDb = handle.close;
});
afterEach(async () => {
  for (const s of sessions.splice(0)) {
    await s.end().catch(() => {});
  }
  await sql`delete from job_workers`.execute(db);
  await sql`delete from graphile_worker._private_jobs`.execute(db);
});
afterAll(async () => {
  await closeDb?.();
  await database?.drop();
});

interface Runner {
  identity: WorkerIdentity;
  id: number;
  session: pg.Client;
}

async function newSession(): Promise<pg.Client> {
  const s = new pg.Client({ connectionString: database.url });
  s.on('error', () => {});
  await s.connect();
  sessions.push(s);
  return s;
}

/** A runner registered as the service registers one. */
async function register(o: { heartbeatMs?: number; deadAfterMs?: number } = {}): Promise<Runner> {
  const identity: WorkerIdentity = {
    poolId: `pool-${randomBytes(9).toString('hex')}`,
    hostname: 'test-host',
    pid: 4242,
    heartbeatMs: o.heartbeatMs ?? 5000,
    deadAfterMs: o.deadAfterMs ?? 20_000,
  };
  const session = await newSession();
  const id = await registerWorker(session, identity);
  return { identity, id, session };
}

/** Its process dies: the connection closes without a word (as at kill -9). */
async function kill(r: Runner): Promise<void> {
  await r.session.end();
  // The server drops the session's locks when it notices the closed socket, a moment later.
  for (let i = 0; i < 200; i++) {
    const held = await sql<{ n: number }>`select count(*)::int as n from pg_locks
      where locktype = 'advisory' and objid = ${r.id}::oid and objsubid = 2`.execute(db);
    if (held.rows[0].n === 0) {
      return;
    }
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error('the advisory lock outlived its session');
}

/** Its last heartbeat was this many ms ago, by the database's clock. */
async function silentFor(r: Runner, ms: number): Promise<void> {
  await sql`update job_workers set last_seen = now() - make_interval(secs => ${ms / 1000}::float8) where id = ${r.id}`.execute(db);
}

/** A job locked by the runner, as graphile-worker locks one it has taken. */
async function lockedJob(r: Runner | string, task = 'deliver_webhook'): Promise<string> {
  const poolId = typeof r === 'string' ? r : r.identity.poolId;
  const job = await sql<{ id: string }>`select id::text from graphile_worker.add_job(${task}, '{}'::json)`.execute(db);
  await sql`update graphile_worker._private_jobs set locked_by = ${poolId}, locked_at = now(), attempts = attempts + 1
            where id = ${job.rows[0].id}::bigint`.execute(db);
  return job.rows[0].id;
}

async function lockOf(jobId: string): Promise<string | null> {
  const r = await sql<{ locked_by: string | null }>`select locked_by from graphile_worker.jobs where id = ${jobId}::bigint`.execute(db);
  return r.rows[0].locked_by;
}

async function registered(): Promise<string[]> {
  const r = await sql<{ pool_id: string }>`select pool_id from job_workers order by id`.execute(db);
  return r.rows.map((x) => x.pool_id);
}

describe('a runner whose process died (its session is gone)', () => {
  it('is dead once silent for one heartbeat interval: its jobs are unlocked, nobody else’s', async () => {
    const reaper = await register();
    const dead = await register();
    const alive = await register();
    const [j1, j2] = [await lockedJob(dead), await lockedJob(dead, 'send_email')];
    const kept = await lockedJob(alive);
    await kill(dead);
    await silentFor(dead, 5001);

    const r = await reapDeadWorkers(db, reaper.identity.poolId);

    expect(r.dead).toHaveLength(1);
    expect(r.dead[0]).toMatchObject({ poolId: dead.identity.poolId, hostname: 'test-host', pid: 4242, reason: 'session_gone' });
    expect(r.dead[0].jobs).toEqual([
      { id: j1, task: 'deliver_webhook', attempts: 1 },
      { id: j2, task: 'send_email', attempts: 1 },
    ]);
    expect(await lockOf(j1)).toBeNull();
    expect(await lockOf(j2)).toBeNull();
    expect(await lockOf(kept)).toBe(alive.identity.poolId);
    expect(await registered()).toEqual([reaper.identity.poolId, alive.identity.poolId]);
    // Done once: a second look finds nothing more.
    expect((await reapDeadWorkers(db, reaper.identity.poolId)).dead).toEqual([]);
  });

  it('is left alone within that interval (time to reconnect), and the caller is told when to look again', async () => {
    const reaper = await register();
    // Half its interval silent: the other half is far longer than the statements below take.
    const dead = await register({ heartbeatMs: 60_000, deadAfterMs: 600_000 });
    const job = await lockedJob(dead);
    await kill(dead);
    await silentFor(dead, 30_000);
    // When its interval ends, from now, by the database's clock: read before and after the check,
    // the answer the check gives lies between the two.
    const intervalEndsIn = async () =>
      Number(
        (
          await sql<{
            ms: number;
          }>`select ceil(extract(epoch from last_seen + make_interval(secs => heartbeat_ms / 1000.0) - now()) * 1000) as ms
            from job_workers where id = ${dead.id}`.execute(db)
        ).rows[0].ms,
      );
    const before = await intervalEndsIn();

    const r = await reapDeadWorkers(db, reaper.identity.poolId);
    const after = await intervalEndsIn();
    expect(r.dead).toEqual([]);
    expect(await lockOf(job)).toBe(dead.identity.poolId);
    expect(before).toBeLessThanOrEqual(30_000);
    expect(r.recheckInMs).toBeLessThanOrEqual(before);
    expect(r.recheckInMs).toBeGreaterThanOrEqual(after);
    expect(after).toBeGreaterThan(0);
  });

  it('is dead at once, without the interval, when the caller knows its process is gone', async () => {
    const reaper = await register();
    const dead = await register({ heartbeatMs: 5000 });
    const job = await lockedJob(dead);
    await kill(dead);
    const asked: [string, number][] = [];
    const r = await reapDeadWorkers(db, reaper.identity.poolId, (host, pid) => {
      asked.push([host, pid]);
      return true;
    });
    expect(asked).toEqual([['test-host', 4242]]);
    expect(r.dead.map((d) => [d.poolId, d.reason])).toEqual([[dead.identity.poolId, 'process_gone']]);
    expect(await lockOf(job)).toBeNull();
  });

  it('a runner never unlocks its own jobs, whatever its row says', async () => {
    const self = await register();
    const job = await lockedJob(self);
    await silentFor(self, 3_600_000);
    const r = await reapDeadWorkers(db, self.identity.poolId);
    expect(r.dead).toEqual([]);
    expect(await lockOf(job)).toBe(self.identity.poolId);
  });
});

describe('a runner whose session is alive', () => {
  it('busy with a slow job and beating, is never taken, however old its job', async () => {
    const reaper = await register();
    const slow = await register();
    const job = await lockedJob(slow);
    await sql`update graphile_worker._private_jobs set locked_at = now() - interval '1 hour' where id = ${job}::bigint`.execute(db);
    await beatWorker(slow.session, slow.id, slow.identity, false);

    expect((await reapDeadWorkers(db, reaper.identity.poolId)).dead).toEqual([]);
    expect(await lockOf(job)).toBe(slow.identity.poolId);
  });

  it('is never taken on the word that its process is gone (another machine may share the host name)', async () => {
    const reaper = await register();
    const alive = await register();
    const job = await lockedJob(alive);
    expect((await reapDeadWorkers(db, reaper.identity.poolId, () => true)).dead).toEqual([]);
    expect(await lockOf(job)).toBe(alive.identity.poolId);
  });

  it('late with its heartbeat but within its dead-after time, is still alive', async () => {
    const reaper = await register();
    const late = await register({ heartbeatMs: 5000, deadAfterMs: 20_000 });
    const job = await lockedJob(late);
    await silentFor(late, 19_000);
    expect((await reapDeadWorkers(db, reaper.identity.poolId)).dead).toEqual([]);
    expect(await lockOf(job)).toBe(late.identity.poolId);
  });

  it('silent past its dead-after time, is dead even though its connection stays open', async () => {
    const reaper = await register();
    const frozen = await register({ heartbeatMs: 5000, deadAfterMs: 20_000 });
    const job = await lockedJob(frozen);
    await silentFor(frozen, 20_001);
    const r = await reapDeadWorkers(db, reaper.identity.poolId);
    expect(r.dead.map((d) => [d.poolId, d.reason])).toEqual([[frozen.identity.poolId, 'heartbeat_stale']]);
    expect(await lockOf(job)).toBeNull();
  });

  it('is judged by its own settings, not the reaper’s', async () => {
    const reaper = await register({ heartbeatMs: 100, deadAfterMs: 200 });
    const patient = await register({ heartbeatMs: 10_000, deadAfterMs: 60_000 });
    await silentFor(patient, 30_000);
    expect((await reapDeadWorkers(db, reaper.identity.poolId)).dead).toEqual([]);
    await silentFor(patient, 60_001);
    expect((await reapDeadWorkers(db, reaper.identity.poolId)).dead.map((d) => d.poolId)).toEqual([patient.identity.poolId]);
  });
});

describe('heartbeats and a clean stop', () => {
  it('a heartbeat moves last_seen to the database’s now()', async () => {
    const r = await register();
    await silentFor(r, 60_000);
    // The database's now() read before and after the beat: the beat's now() lies between them.
    const dbNow = async () => (await sql<{ t: Date }>`select clock_timestamp() as t`.execute(db)).rows[0].t.getTime();
    const before = await dbNow();
    expect(await beatWorker(r.session, r.id, r.identity, false)).toEqual({ reinserted: false });
    const after = await dbNow();
    const seen = await sql<{ t: Date }>`select last_seen as t from job_workers where id = ${r.id}`.execute(db);
    expect(seen.rows[0].t.getTime()).toBeGreaterThanOrEqual(before);
    expect(seen.rows[0].t.getTime()).toBeLessThanOrEqual(after);
  });

  it('a runner taken for dead that turns out alive registers again at its next beat, and is protected again', async () => {
    const reaper = await register();
    const zombie = await register({ heartbeatMs: 5000, deadAfterMs: 20_000 });
    await silentFor(zombie, 25_000);
    expect((await reapDeadWorkers(db, reaper.identity.poolId)).dead).toHaveLength(1);
    expect(await registered()).toEqual([reaper.identity.poolId]);

    expect(await beatWorker(zombie.session, zombie.id, zombie.identity, false)).toEqual({ reinserted: true });
    expect(await registered()).toEqual([reaper.identity.poolId, zombie.identity.poolId]);
    const job = await lockedJob(zombie);
    expect((await reapDeadWorkers(db, reaper.identity.poolId)).dead).toEqual([]);
    expect(await lockOf(job)).toBe(zombie.identity.poolId);
  });

  it('on a new session after a lost one, the beat takes the lock again', async () => {
    const reaper = await register();
    const r = await register();
    await r.session.end();
    const fresh = await newSession();
    await beatWorker(fresh, r.id, r.identity, true);
    await silentFor(r, 6000); // past one interval: only the lock keeps it alive now
    expect((await reapDeadWorkers(db, reaper.identity.poolId)).dead).toEqual([]);
  });

  it('deregistering removes the row and releases the lock', async () => {
    const r = await register();
    await deregisterWorker(r.session, r.id);
    expect(await registered()).toEqual([]);
    const held = await sql<{ n: number }>`select count(*)::int as n from pg_locks
      where locktype = 'advisory' and objid = ${r.id}::oid and objsubid = 2`.execute(db);
    expect(held.rows[0].n).toBe(0);
  });

  it('jobs locked by an id that never registered are left to graphile-worker’s own timeout', async () => {
    const reaper = await register();
    const job = await lockedJob('pool-from-an-older-release');
    expect((await reapDeadWorkers(db, reaper.identity.poolId)).dead).toEqual([]);
    expect(await lockOf(job)).toBe('pool-from-an-older-release');
  });
});
