// The job runner (graphile-worker on the service's own PostgreSQL). Jobs are added inside the
// transaction that causes them, so none is lost or phantom. Each task has its handler in a file of
// this folder, registered in taskList() below, and its payload schema with its typed add in
// payloads/ (apart from the handler, which imports domain/: the code that adds a job imports only
// the payload file, so domain/ and jobs/ do not import each other in a circle).
import { prettyLogs, prettyStream } from '../log-format.js';
import { EventEmitter } from 'node:events';
import { Logger, parseCronItems, run, type Runner, type TaskList, type WorkerEvents, type WorkerPool } from 'graphile-worker';
import pg from 'pg';
import { pino } from 'pino';
import type { Deps } from '../domain/deps.js';
import { checkOcspResponderTask } from './check-ocsp-responder.js';
import { deliverWebhookTask } from './deliver-webhook.js';
import { nom151StampTask } from './nom151-stamp.js';
import { NOM151_STAMP } from './payloads/nom151-stamp.js';
import { CHECK_OCSP_RESPONDER } from './payloads/check-ocsp-responder.js';
import { DELIVER_WEBHOOK } from './payloads/deliver-webhook.js';
import { SEND_EMAIL } from './payloads/send-email.js';
import { SEND_MESSAGE } from './payloads/send-message.js';
import { WORKFLOW_EXPIRE } from './payloads/workflow-expire.js';
import { WORKFLOW_REMIND } from './payloads/workflow-remind.js';
import { UNIVERSAL_BUILD } from './payloads/universal-build.js';
import { UNIVERSAL_RENEW } from './payloads/universal-renew.js';
import { UNIVERSAL_SWEEP } from './payloads/universal-sweep.js';
import { sendEmailTask } from './send-email.js';
import { universalBuildTask } from './universal-build.js';
import { universalRenewTask } from './universal-renew.js';
import { universalSweepTask } from './universal-sweep.js';
import { sendMessageTask } from './send-message.js';
import { workflowExpireTask } from './workflow-expire.js';
import { workflowRemindTask } from './workflow-remind.js';
import { startLiveness, type WorkerLiveness } from './worker-liveness.js';
import { identityEvidenceSweepTask } from './identity-evidence-sweep.js';
import { IDENTITY_EVIDENCE_SWEEP } from './payloads/identity-evidence-sweep.js';
import { identityChecksTask } from './identity-checks.js';
import { bulkRunTask } from './bulk-run.js';
import { BULK_RUN } from './payloads/bulk-run.js';
import { IDENTITY_CHECKS } from './payloads/identity-checks.js';
import { orphanBlobSweepTask } from './orphan-blob-sweep.js';
import { ORPHAN_BLOB_SWEEP } from './payloads/orphan-blob-sweep.js';
import { purgeDeletedDocumentsTask } from './purge-deleted-documents.js';
import { PURGE_DELETED_DOCUMENTS } from './payloads/purge-deleted-documents.js';

export function taskList(deps: Deps): TaskList {
  return {
    [DELIVER_WEBHOOK.task]: deliverWebhookTask(deps),
    [SEND_EMAIL.task]: sendEmailTask(deps),
    [SEND_MESSAGE.task]: sendMessageTask(deps),
    [CHECK_OCSP_RESPONDER.task]: checkOcspResponderTask(deps),
    [WORKFLOW_REMIND.task]: workflowRemindTask(deps),
    [WORKFLOW_EXPIRE.task]: workflowExpireTask(deps),
    [NOM151_STAMP.task]: nom151StampTask(deps),
    [UNIVERSAL_BUILD.task]: universalBuildTask(deps),
    [UNIVERSAL_RENEW.task]: universalRenewTask(deps),
    [UNIVERSAL_SWEEP.task]: universalSweepTask(deps),
    [IDENTITY_EVIDENCE_SWEEP.task]: identityEvidenceSweepTask(deps),
    [IDENTITY_CHECKS.task]: identityChecksTask(deps),
    [PURGE_DELETED_DOCUMENTS.task]: purgeDeletedDocumentsTask(deps),
    [ORPHAN_BLOB_SWEEP.task]: orphanBlobSweepTask(deps),
    [BULK_RUN.task]: bulkRunTask(deps),
  };
}

// Recurring jobs. graphile-worker schedules each item once per match across every worker process
// of the database. No backfill: a missed daily check is simply the next day's.
const CRON_ITEMS = parseCronItems([
  {
    task: CHECK_OCSP_RESPONDER.task,
    match: '17 3 * * *', // every day at 03:17 UTC
    identifier: CHECK_OCSP_RESPONDER.task,
    options: { backfillPeriod: 0, maxAttempts: 3, jobKey: CHECK_OCSP_RESPONDER.task },
  },
  {
    task: UNIVERSAL_SWEEP.task,
    match: '43 4 * * *', // every day at 04:43 UTC
    identifier: UNIVERSAL_SWEEP.task,
    options: { backfillPeriod: 0, maxAttempts: 3, jobKey: UNIVERSAL_SWEEP.task },
  },
  {
    task: IDENTITY_EVIDENCE_SWEEP.task,
    match: '29 2 * * *', // every day at 02:29 UTC
    identifier: IDENTITY_EVIDENCE_SWEEP.task,
    options: { backfillPeriod: 0, maxAttempts: 3, jobKey: IDENTITY_EVIDENCE_SWEEP.task },
  },
  {
    // Before the sweep: the blobs of the documents it purges are deleted at once, and any it could
    // not delete (a crash between the two) are the sweep's once past their grace period.
    task: PURGE_DELETED_DOCUMENTS.task,
    match: '11 1 * * *', // every day at 01:11 UTC
    identifier: PURGE_DELETED_DOCUMENTS.task,
    options: { backfillPeriod: 0, maxAttempts: 3, jobKey: PURGE_DELETED_DOCUMENTS.task },
  },
  {
    task: ORPHAN_BLOB_SWEEP.task,
    match: '37 1 * * *', // every day at 01:37 UTC
    identifier: ORPHAN_BLOB_SWEEP.task,
    options: { backfillPeriod: 0, maxAttempts: 3, jobKey: ORPHAN_BLOB_SWEEP.task },
  },
]);

/** A running job runner: stopped once, and asked whether its heartbeat is current. */
export interface JobRunner extends Pick<Runner, 'stop'> {
  /** When it last recorded in the database that it is alive (Date.now ms). */
  lastBeatAt(): number;
}

export async function startWorker(deps: Deps, connectionString: string, concurrency = 4): Promise<JobRunner> {
  // The runner gets a pool this process owns: graphile-worker's stop() drops the error handlers of
  // a pool it made itself without waiting for it to end, so a database stopping right after would
  // crash the process with an unhandled 'error'.
  const pgPool = new pg.Pool({ connectionString, max: concurrency + 2 });
  pgPool.on('error', () => {});
  pgPool.on('connect', (client) => client.on('error', () => {}));
  const log = prettyLogs(deps.config)
    ? pino({ level: deps.config.logLevel, name: 'jobs' }, prettyStream())
    : pino({ level: deps.config.logLevel, name: 'jobs' });

  // graphile-worker writes its pool's id into locked_by of every job the pool takes, and makes the
  // id up when the pool is created: the runner registers under it (worker-liveness.ts) as soon as
  // it exists, and its workers wait for that registration before taking their first job, so no
  // job is ever locked by a runner the others cannot judge.
  const events: WorkerEvents = new EventEmitter();
  // Wrapped in an object: a WorkerPool is itself a thenable (it settles when the pool ends), so a
  // promise resolved with it would wait for the end of the pool.
  let created!: (c: { workerPool: WorkerPool }) => void;
  const pool = new Promise<{ workerPool: WorkerPool }>((resolve) => {
    created = resolve;
  });
  events.once('pool:create', ({ workerPool }) => created({ workerPool }));
  const registration = pool.then(({ workerPool }) =>
    startLiveness({
      connectionString,
      db: deps.db,
      poolId: workerPool.id,
      settings: deps.config.workers,
      log,
      // Unlocked jobs are due already: look for them now rather than at the next poll.
      onUnlocked: (n) => workerPool.nudge(n),
    }),
  );
  registration.catch(() => {}); // awaited below; this only keeps an early failure from going unhandled
  const waitForRegistration: GraphileConfig.Plugin = {
    name: 'SelloWorkerLiveness',
    worker: {
      hooks: {
        startWorker: async () => {
          await registration;
        },
      },
    },
  };

  let runner: Runner;
  try {
    runner = await startRunner(deps, pgPool, concurrency, events, waitForRegistration);
  } catch (err) {
    await pgPool.end();
    throw err;
  }
  let liveness: WorkerLiveness;
  try {
    liveness = await registration;
  } catch (err) {
    await runner.stop().catch(() => {});
    await pgPool.end();
    throw err;
  }
  return {
    lastBeatAt: () => liveness.lastBeatAt(),
    stop: async () => {
      try {
        await runner.stop();
        // Only once every job of this runner has finished or been handed back: until then it
        // keeps beating, however long its last jobs take.
        await liveness.stop();
      } finally {
        await pgPool.end();
      }
    },
  };
}

function startRunner(
  deps: Deps,
  pgPool: pg.Pool,
  concurrency: number,
  events: WorkerEvents,
  plugin: GraphileConfig.Plugin,
): Promise<Runner> {
  return run({
    pgPool,
    taskList: taskList(deps),
    concurrency,
    // The process owner (sello serve / sello worker) handles signals and stops the runner itself.
    noHandleSignals: true,
    pollInterval: 1000,
    // Recurring jobs are declared in code, never read from a crontab file in the working directory.
    parsedCronItems: CRON_ITEMS,
    events,
    preset: { plugins: [plugin] },
    logger: new Logger(() => (level, message) => {
      if (level === 'error' || level === 'warning') {
        console.error(`jobs: ${message}`);
      }
    }),
  });
}
