// Starts a worker thread on a TypeScript module: registers tsx's loader in the worker (loaders do
// not carry over from the parent thread), then imports the entry named in workerData.
import { register } from 'tsx/esm/api';
import { workerData } from 'node:worker_threads';

register();
await import(workerData.entry);
