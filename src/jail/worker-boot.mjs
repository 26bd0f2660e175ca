// Starts a worker thread on a TypeScript module: registers tsx's loader in the worker (loaders do
// not carry over from the parent thread) and, after it, the hook that lets installed packages load
// as plain Node loads them (bin/packages-hook.js: through tsx, @libpdf/core alone costs ~120 MB,
// which would count against the worker's memory limit), then imports the entry named in workerData
// and says it is ready.
import { register as registerHook } from 'node:module';
import { parentPort, workerData } from 'node:worker_threads';
import { register } from 'tsx/esm/api';

register();
registerHook('../../bin/packages-hook.js', import.meta.url);
await import(workerData.entry);
// The pool starts a task's time limit from here: loading the modules of a fresh worker can take
// seconds on a busy machine, and that is not the task's time.
parentPort.postMessage({ ready: true });
