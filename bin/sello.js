#!/usr/bin/env node
// Entry point of the `sello` command. It runs build/, the JavaScript that scripts/build-server.mjs
// compiles from src/ (on `npm ci`, `npm start`, `npm test` and `npm run build`): the service, its
// worker threads and the commands start without compiling any TypeScript. In a checkout where a
// source is newer than the build (one just edited), it runs the sources through tsx instead and says
// so on one line of stderr; installed packages then load as plain Node loads them (packages-hook.js
// says why).
import { staleBuild } from './build-check.js';

const stale = staleBuild();
if (!stale) {
  await import('../build/main.js');
} else {
  let tsx;
  try {
    tsx = await import('tsx/esm/api');
  } catch (err) {
    if (err.code !== 'ERR_MODULE_NOT_FOUND') {
      throw err;
    }
    console.error(`sello: ${stale}, and tsx (a development dependency) is not installed to run the sources: npm run build`);
    process.exit(1);
  }
  console.error(`sello: ${stale}: running the sources through tsx (npm run build for the faster start)`);
  const { register: registerHook } = await import('node:module');
  tsx.register();
  registerHook('./packages-hook.js', import.meta.url);
  await import('../src/main.ts');
}
