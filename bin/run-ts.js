#!/usr/bin/env node
// Runs a TypeScript file of this repository (benchmarks, scripts) through tsx's loader, as
// bin/sello.js runs the service: installed packages load as plain Node loads them (packages-hook.js).
import { register as registerHook } from 'node:module';
import { register } from 'tsx/esm/api';
import { pathToFileURL } from 'node:url';
import { resolve } from 'node:path';

register();
registerHook('./packages-hook.js', import.meta.url);
const file = process.argv[2];
if (!file) {
  console.error('usage: run-ts.js FILE.ts [args...]');
  process.exit(2);
}
process.argv.splice(1, 1);
await import(pathToFileURL(resolve(file)).href);
