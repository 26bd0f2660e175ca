#!/usr/bin/env node
// Compiles the server's sources (src/) to JavaScript in build/, so the service, its worker threads
// and the CLI start without compiling TypeScript: bin/sello.js runs build/ when it is current
// (bin/build-check.js). Run by `npm ci` and `npm install` (prepare), before `npm start` and
// `npm test`, and by `npm run build`; it builds only when the build is missing or older than a
// source, `--force` regardless, `--out DIR` into another folder.
//
// Each file is transpiled on its own (esbuild; nothing is bundled): worker entries and the commands'
// lazily loaded modules stay modules of their own, and a stack trace names the file it ran in
// (`NODE_OPTIONS=--enable-source-maps` maps it to the TypeScript line through the .map beside it).
// build/ mirrors src/ at the same depth, so a path relative to a module reaches the same repository
// file from either (web/dist); the files that are not TypeScript (the SQL migrations, the worker
// boot) are copied beside the JavaScript, so build/ runs without src/ (the container image carries
// build/ alone).
//
// Not dist/: dist/client is the client package (scripts/build-client.mjs), where src/client's
// modules would land too. esbuild is a dependency, not a development one: `npm ci --omit=dev` runs
// this script as well.
import { copyFileSync, existsSync, mkdirSync, readdirSync, renameSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { ROOT, staleBuild } from '../bin/build-check.js';

const args = process.argv.slice(2);
const outAt = args.indexOf('--out');
const out = outAt >= 0 ? resolve(args[outAt + 1]) : join(ROOT, 'build');
const src = join(ROOT, 'src');

if (!existsSync(src)) {
  // An install of the built service alone (the container image's): nothing to compile.
  process.exit(0);
}
const reason = staleBuild(ROOT, out);
if (!reason && !args.includes('--force')) {
  process.exit(0);
}

const started = new Date();
const sources = [];
const others = [];
const walk = (dir) => {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      walk(path);
    } else if (!path.endsWith('.ts')) {
      others.push(path);
    } else if (!path.endsWith('.d.ts')) {
      sources.push(path);
    }
  }
};
walk(src);

// Built beside the output and swapped in whole: a process starting meanwhile finds the old build or
// the new one, never half of one.
const tmp = `${out}.tmp-${process.pid}`;
rmSync(tmp, { recursive: true, force: true });
const { build } = await import('esbuild');
await build({
  entryPoints: sources,
  outbase: src,
  outdir: tmp,
  format: 'esm',
  platform: 'node',
  // package.json's engines: the oldest Node the service runs on.
  target: 'node20.19',
  tsconfig: join(ROOT, 'tsconfig.json'),
  sourcemap: 'linked',
  logLevel: 'warning',
});
for (const file of others) {
  const to = join(tmp, relative(src, file));
  mkdirSync(dirname(to), { recursive: true });
  copyFileSync(file, to);
}
// The stamp carries the time the build started: a source saved during the build is newer than it.
const stamp = join(tmp, '.build-stamp');
writeFileSync(stamp, `built from src/ by scripts/build-server.mjs\n`);
utimesSync(stamp, started, started);

const old = `${out}.old-${process.pid}`;
if (existsSync(out)) {
  renameSync(out, old);
}
renameSync(tmp, out);
rmSync(old, { recursive: true, force: true });
const seconds = ((Date.now() - started.getTime()) / 1000).toFixed(1);
const where = relative(ROOT, out).startsWith('..') ? out : relative(ROOT, out);
console.log(
  `Server built in ${where} (${reason ?? 'forced'}): ${sources.length} modules and ${others.length} other files in ${seconds} s.`,
);
