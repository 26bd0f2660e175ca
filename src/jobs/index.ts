// The job runner (graphile-worker on the service's own PostgreSQL). Jobs are added inside the
// transaction that causes them, so none is lost or phantom. Each task lives in its own file of
// this folder and is registered in taskList() below.
import { Logger, parseCronItems, run, type Runner, type TaskList } from 'graphile-worker';
import pg from 'pg';
import type { Deps } from '../domain/deps.js';
import { DELIVER_WEBHOOK_TASK } from '../store/events-repo.js';
import { SEND_EMAIL_TASK } from '../store/mail-repo.js';
import { CHECK_OCSP_RESPONDER_TASK, checkOcspResponderTask } from './check-ocsp-responder.js';
import { deliverWebhookTask } from './deliver-webhook.js';
import { sendEmailTask } from './send-email.js';
import { EXPIRE_TASK, REMIND_TASK } from '../store/workflow-repo.js';
import { workflowExpireTask } from './workflow-expire.js';
import { workflowRemindTask } from './workflow-remind.js';

export function taskList(deps: Deps): TaskList {
  return {
    [DELIVER_WEBHOOK_TASK]: deliverWebhookTask(deps),
    [SEND_EMAIL_TASK]: sendEmailTask(deps),
    [CHECK_OCSP_RESPONDER_TASK]: checkOcspResponderTask(deps),
    [REMIND_TASK]: workflowRemindTask(deps),
    [EXPIRE_TASK]: workflowExpireTask(deps),
  };
}

// Recurring jobs. graphile-worker schedules each item once per match across every worker process
// of the database. No backfill: a missed daily check is simply the next day's.
const CRON_ITEMS = parseCronItems([
  {
    task: CHECK_OCSP_RESPONDER_TASK,
    match: '17 3 * * *', // every day at 03:17 UTC
    identifier: CHECK_OCSP_RESPONDER_TASK,
    options: { backfillPeriod: 0, maxAttempts: 3, jobKey: CHECK_OCSP_RESPONDER_TASK },
  },
]);

export async function startWorker(deps: Deps, connectionString: string, concurrency = 4): Promise<Pick<Runner, 'stop'>> {
  // The runner gets a pool this process owns: graphile-worker's stop() drops the error handlers of
  // a pool it made itself without waiting for it to end, so a database stopping right after would
  // crash the process with an unhandled 'error'.
  const pgPool = new pg.Pool({ connectionString, max: concurrency + 2 });
  pgPool.on('error', () => {});
  pgPool.on('connect', (client) => client.on('error', () => {}));
  let runner: Runner;
  try {
    runner = await startRunner(deps, pgPool, concurrency);
  } catch (err) {
    await pgPool.end();
    throw err;
  }
  return {
    stop: async () => {
      try {
        await runner.stop();
      } finally {
        await pgPool.end();
      }
    },
  };
}

function startRunner(deps: Deps, pgPool: pg.Pool, concurrency: number): Promise<Runner> {
  return run({
    pgPool,
    taskList: taskList(deps),
    concurrency,
    // The process owner (sello serve / sello worker) handles signals and stops the runner itself.
    noHandleSignals: true,
    pollInterval: 1000,
    // Recurring jobs are declared in code, never read from a crontab file in the working directory.
    parsedCronItems: CRON_ITEMS,
    logger: new Logger(() => (level, message) => {
      if (level === 'error' || level === 'warning') {
        console.error(`jobs: ${message}`);
      }
    }),
  });
}
