// Starts a worker thread on a TypeScript module: registers tsx's loader in the worker (loaders do
// not carry over from the parent thread) and, after it, the hook that lets installed packages load
// as plain Node loads them (bin/packages-hook.js: through tsx, @libpdf/core alone costs ~120 MB,
// which would count against the worker's memory limit), then imports the entry named in workerData.
import { register as registerHook } from 'node:module';
import { workerData } from 'node:worker_threads';
import { register } from 'tsx/esm/api';

register();
registerHook('../../bin/packages-hook.js', import.meta.url);
await import(workerData.entry);
