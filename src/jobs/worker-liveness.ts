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
  /** The clock of lastBeatAt(); Date.now by default. */
  now?: () => number;
}

export interface WorkerLiveness {
  /** When this runner last recorded in the database that it is alive (ms on `now`). */
  lastBeatAt(): number;
  /** Deregisters (a clean stop: nothing of this runner is left to unlock) and closes the session. */
  stop(): Promise<void>;
}

/** Registers this runner, unlocks the jobs of runners already dead, then keeps beating. */
export async function startLiveness(o: LivenessOptions): Promise<WorkerLiveness> {
  const liveness = new Liveness(o);
  await liveness.start();
  return liveness;
}

class Liveness implements WorkerLiveness {
  private readonly me: WorkerIdentity;
  private stopped = false;
  private timer: NodeJS.Timeout | undefined;
  private recheck: NodeJS.Timeout | undefined;
  private running: Promise<void> = Promise.resolve();
  private sessionLost = false;
  private session: pg.Client | undefined;
  private id = 0;
  private lastBeat = 0;

  constructor(private readonly o: LivenessOptions) {
    this.me = {
      poolId: o.poolId,
      hostname: hostname(),
      pid: process.pid,
      heartbeatMs: o.settings.heartbeatMs,
      deadAfterMs: o.settings.deadAfterMs,
    };
  }

  async start(): Promise<void> {
    const { me } = this;
    this.session = await this.connect();
    try {
      this.id = await registerWorker(this.session, me);
      this.lastBeat = this.now();
    } catch (err) {
      await this.session.end().catch(() => {});
      throw err;
    }
    this.o.log.info({ worker: me.poolId, heartbeatMs: me.heartbeatMs, deadAfterMs: me.deadAfterMs }, `job runner ${me.poolId} registered`);
    // The first check runs before this returns: jobs a crashed predecessor held are free at start.
    await this.serial(() => this.reap());
    this.timer = setTimeout(() => void this.tick(), this.o.settings.heartbeatMs);
  }

  lastBeatAt(): number {
    return this.lastBeat;
  }

  private now(): number {
    return (this.o.now ?? Date.now)();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    clearTimeout(this.recheck);
    await this.running;
    try {
      if (this.session && !this.sessionLost) {
        await deregisterWorker(this.session, this.id);
        this.o.log.info({ worker: this.me.poolId }, `job runner ${this.me.poolId} deregistered`);
      }
    } catch (err) {
      this.o.log.warn({ worker: this.me.poolId, err: (err as Error).message }, 'job runner liveness: deregistering failed');
    } finally {
      await this.session?.end().catch(() => {});
    }
  }

  private async connect(): Promise<pg.Client> {
    const client = new pg.Client({
      connectionString: this.o.connectionString,
      application_name: `sello ${this.o.poolId}`,
      // A heartbeat stuck on a connection that no longer answers must not hold up the checks.
      connectionTimeoutMillis: this.o.settings.deadAfterMs,
      query_timeout: this.o.settings.deadAfterMs,
    });
    // A lost connection loses the runner's advisory lock: beat again soon, on a new connection, so
    // that other runners do not take this one for dead (they allow one heartbeat interval).
    const lost = () => {
      if (client === this.session && !this.stopped && !this.sessionLost) {
        this.sessionLost = true;
        clearTimeout(this.timer);
        this.timer = setTimeout(() => void this.tick(), Math.min(250, this.o.settings.heartbeatMs));
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

  private async beat(): Promise<void> {
    const relock = this.sessionLost;
    if (this.sessionLost) {
      await this.session?.end().catch(() => {});
      this.session = undefined;
      this.session = await this.connect();
      this.sessionLost = false;
    }
    try {
      const { reinserted } = await beatWorker(this.session!, this.id, this.me, relock);
      this.lastBeat = this.now();
      if (reinserted) {
        this.o.log.warn(
          { worker: this.me.poolId },
          `job runner ${this.me.poolId} had been taken for dead by another process (its jobs were unlocked); registered again`,
        );
      }
    } catch (err) {
      this.sessionLost = true;
      throw err;
    }
  }

  private async reap(): Promise<void> {
    const { me } = this;
    const r = await reapDeadWorkers(this.o.db, me.poolId, (host, pid) => host === me.hostname && !processRuns(pid));
    for (const dead of r.dead) {
      report(this.o.log, dead);
    }
    const unlocked = r.dead.reduce((n, d) => n + d.jobs.length, 0);
    if (unlocked > 0) {
      this.o.onUnlocked?.(unlocked);
    }
    // A runner whose session is gone counts as dead one heartbeat after its last beat: look again
    // then rather than a whole interval later.
    clearTimeout(this.recheck);
    if (r.recheckInMs !== null && r.recheckInMs < this.o.settings.heartbeatMs && !this.stopped) {
      this.recheck = setTimeout(() => void this.serial(() => this.reap()), Math.max(r.recheckInMs, 0) + 50);
    }
  }

  // Beats and reaps never overlap; a stop waits for the one under way.
  private serial(step: () => Promise<void>): Promise<void> {
    this.running = this.running.then(async () => {
      if (this.stopped) {
        return;
      }
      try {
        await step();
      } catch (err) {
        this.o.log.warn({ worker: this.me.poolId, err: (err as Error).message }, 'job runner liveness: heartbeat or check failed');
      }
    });
    return this.running;
  }

  private async tick(): Promise<void> {
    clearTimeout(this.timer);
    await this.serial(() => this.beat());
    await this.serial(() => this.reap());
    if (!this.stopped) {
      clearTimeout(this.timer);
      this.timer = setTimeout(() => void this.tick(), this.o.settings.heartbeatMs);
    }
  }
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
