// Starts a worker thread on the module named in workerData and says when it is ready.
//
// From the build (build/, JavaScript) the entry is imported as it is. An entry named .ts is a
// source, run through tsx (bin/sello.js on a checkout with a newer source, bin/run-ts.js, the tests
// under vitest): tsx's loader is registered in this thread first (loaders do not carry over from the
// parent thread) and, after it, the hook that lets installed packages load as plain Node loads them
// (bin/packages-hook.js: through tsx, @libpdf/core alone costs ~120 MB, which would count against
// the worker's memory limit).
import { register as registerHook } from 'node:module';
import { parentPort, workerData } from 'node:worker_threads';

if (workerData.entry.endsWith('.ts')) {
  const { register } = await import('tsx/esm/api');
  register();
  registerHook('../../bin/packages-hook.js', import.meta.url);
}
await import(workerData.entry);
// The pool starts a task's time limit from here: loading the modules of a fresh worker can take
// seconds on a busy machine, and that is not the task's time.
parentPort.postMessage({ ready: true });
