// The job runner (graphile-worker on the service's own PostgreSQL). Jobs are added inside the
// transaction that causes them, so none is lost or phantom. Each task lives in its own file of
// this folder and is registered in taskList() below.
import { Logger, run, type Runner, type TaskList } from 'graphile-worker';
import type { Deps } from '../domain/deps.js';

export function taskList(_deps: Deps): TaskList {
  return {};
}

export async function startWorker(deps: Deps, connectionString: string, concurrency = 4): Promise<Runner> {
  return run({
    connectionString,
    taskList: taskList(deps),
    concurrency,
    // The process owner (sello serve / sello worker) handles signals and stops the runner itself.
    noHandleSignals: true,
    pollInterval: 1000,
    // Recurring jobs are declared in code, never read from a crontab file in the working directory.
    parsedCronItems: [],
    logger: new Logger(() => (level, message) => {
      if (level === 'error' || level === 'warning') {
        console.error(`jobs: ${message}`);
      }
    }),
  });
}
