// Liveness of the job runners sharing one database. graphile-worker unlocks the jobs of a runner
// that vanished (kill -9, a crash, a lost machine) only four hours after it locked them; until
// then its webhooks and emails wait. Each runner therefore registers in job_workers, beats on a
// connection of its own, and looks for dead runners at start and at every heartbeat: the jobs of a
// dead one are unlocked at once and run again (handlers are idempotent; deliveries are at least
// once). Which runner counts as dead is decided in store/job-workers-repo.ts.
import { hostname } from 'node:os';
import pg from 'pg';
import type { Db } from '../store/db.js';
import {
  beatWorker,
  type DeadWorker,
  deregisterWorker,
  reapDeadWorkers,
  registerWorker,
  type WorkerIdentity,
} from '../store/job-workers-repo.js';

/** When a runner beats and how long without a beat makes it dead (docs/configuration.md). */
export interface LivenessSettings {
  heartbeatMs: number;
  deadAfterMs: number;
}

/** The subset of a pino logger used here. */
export interface LivenessLog {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
}

export interface LivenessOptions {
  connectionString: string;
  /** Where dead runners are looked for and their jobs unlocked. */
  db: Db;
  /** graphile-worker's pool id of this process's runner. */
  poolId: string;
  settings: LivenessSettings;
  log: LivenessLog;
  /** Called with the number of jobs just unlocked, so this runner can look for work at once. */
  onUnlocked?: (jobs: number) => void;
}

export interface WorkerLiveness {
  /** Deregisters (a clean stop: nothing of this runner is left to unlock) and closes the session. */
  stop(): Promise<void>;
}

/** Registers this runner, unlocks the jobs of runners already dead, then keeps beating. */
export async function startLiveness(o: LivenessOptions): Promise<WorkerLiveness> {
  const me: WorkerIdentity = {
    poolId: o.poolId,
    hostname: hostname(),
    pid: process.pid,
    heartbeatMs: o.settings.heartbeatMs,
    deadAfterMs: o.settings.deadAfterMs,
  };
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let recheck: NodeJS.Timeout | undefined;
  let running: Promise<void> = Promise.resolve();
  let sessionLost = false;
  let session: pg.Client | undefined;
  session = await connect();
  let id: number;
  try {
    id = await registerWorker(session, me);
  } catch (err) {
    await session.end().catch(() => {});
    throw err;
  }
  o.log.info({ worker: me.poolId, heartbeatMs: me.heartbeatMs, deadAfterMs: me.deadAfterMs }, `job runner ${me.poolId} registered`);

  async function connect(): Promise<pg.Client> {
    const client = new pg.Client({
      connectionString: o.connectionString,
      application_name: `sello ${o.poolId}`,
      // A heartbeat stuck on a connection that no longer answers must not hold up the checks.
      connectionTimeoutMillis: o.settings.deadAfterMs,
      query_timeout: o.settings.deadAfterMs,
    });
    // A lost connection loses the runner's advisory lock: beat again soon, on a new connection, so
    // that other runners do not take this one for dead (they allow one heartbeat interval).
    const lost = () => {
      if (client === session && !stopped && !sessionLost) {
        sessionLost = true;
        clearTimeout(timer);
        timer = setTimeout(() => void tick(), Math.min(250, o.settings.heartbeatMs));
      }
    };
    client.on('error', lost);
    client.on('end', lost);
    try {
      await client.connect();
    } catch (err) {
      await client.end().catch(() => {});
      throw err;
    }
    return client;
  }

  async function beat(): Promise<void> {
    const relock = sessionLost;
    if (sessionLost) {
      await session?.end().catch(() => {});
      session = undefined;
      session = await connect();
      sessionLost = false;
    }
    try {
      const { reinserted } = await beatWorker(session!, id, me, relock);
      if (reinserted) {
        o.log.warn(
          { worker: me.poolId },
          `job runner ${me.poolId} had been taken for dead by another process (its jobs were unlocked); registered again`,
        );
      }
    } catch (err) {
      sessionLost = true;
      throw err;
    }
  }

  async function reap(): Promise<void> {
    const r = await reapDeadWorkers(o.db, me.poolId, (host, pid) => host === me.hostname && !processRuns(pid));
    for (const dead of r.dead) {
      report(o.log, dead);
    }
    const unlocked = r.dead.reduce((n, d) => n + d.jobs.length, 0);
    if (unlocked > 0) {
      o.onUnlocked?.(unlocked);
    }
    // A runner whose session is gone counts as dead one heartbeat after its last beat: look again
    // then rather than a whole interval later.
    clearTimeout(recheck);
    if (r.recheckInMs !== null && r.recheckInMs < o.settings.heartbeatMs && !stopped) {
      recheck = setTimeout(() => void serial(reap), Math.max(r.recheckInMs, 0) + 50);
    }
  }

  // Beats and reaps never overlap; a stop waits for the one under way.
  function serial(step: () => Promise<void>): Promise<void> {
    running = running.then(async () => {
      if (stopped) {
        return;
      }
      try {
        await step();
      } catch (err) {
        o.log.warn({ worker: me.poolId, err: (err as Error).message }, 'job runner liveness: heartbeat or check failed');
      }
    });
    return running;
  }

  async function tick(): Promise<void> {
    clearTimeout(timer);
    await serial(beat);
    await serial(reap);
    if (!stopped) {
      clearTimeout(timer);
      timer = setTimeout(() => void tick(), o.settings.heartbeatMs);
    }
  }

  // The first check runs before this returns: jobs a crashed predecessor held are free at start.
  await serial(reap);
  timer = setTimeout(() => void tick(), o.settings.heartbeatMs);

  return {
    async stop() {
      stopped = true;
      clearTimeout(timer);
      clearTimeout(recheck);
      await running;
      try {
        if (session && !sessionLost) {
          await deregisterWorker(session, id);
          o.log.info({ worker: me.poolId }, `job runner ${me.poolId} deregistered`);
        }
      } catch (err) {
        o.log.warn({ worker: me.poolId, err: (err as Error).message }, 'job runner liveness: deregistering failed');
      } finally {
        await session?.end().catch(() => {});
      }
    },
  };
}

/**
 * Whether a process of this host with that id still runs. Our own id counts as not running: it
 * belonged to a runner before us (a container restarted keeps its host name and often its pid).
 */
function processRuns(pid: number): boolean {
  if (pid === process.pid) {
    return false;
  }
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM'; // someone else's process: it runs
  }
}

const WHY: Record<DeadWorker['reason'], string> = {
  process_gone: 'its process no longer runs on this host',
  session_gone: 'its database session is gone (the process ended without stopping)',
  heartbeat_stale: 'no heartbeat for longer than its dead-after time',
};

function report(log: LivenessLog, dead: DeadWorker): void {
  const why = WHY[dead.reason];
  log.info(
    {
      deadWorker: dead.poolId,
      host: dead.hostname,
      pid: dead.pid,
      lastSeen: dead.lastSeen.toISOString(),
      reason: dead.reason,
      unlockedJobs: dead.jobs,
    },
    `job runner ${dead.poolId} (host ${dead.hostname}, pid ${dead.pid}) is dead: ${why}; ` +
      `unlocked ${dead.jobs.length} job(s)${dead.jobs.length ? `: ${dead.jobs.map((j) => `${j.id} ${j.task}`).join(', ')}` : ''}`,
  );
}
