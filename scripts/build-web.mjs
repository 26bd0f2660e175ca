#!/usr/bin/env node
// Builds the signer page (web/ → web/dist) when the build is missing or older than its sources:
// run before `npm start` and `npm test`, so a fresh clone works with `npm ci && npm start`.
// `--force` builds regardless. A stamp written after a successful build marks it complete, so an
// interrupted build is redone.
//
// The package files count by their content, recorded in the stamp, not by their time: `npm prune`
// rewrites package-lock.json unchanged, and after a light install's prune (docs/operations.md) the
// build tools are gone, so a build started for nothing would fail.
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const web = join(root, 'web');
const dist = join(web, 'dist');
const stamp = join(dist, '.build-stamp');

/** Newest modification time among the page's sources. */
function newestSource() {
  let newest = 0;
  let newestFile = '';
  const visit = (path) => {
    const st = statSync(path);
    if (st.isDirectory()) {
      for (const name of readdirSync(path)) {
        if (path === web && (name === 'dist' || name === 'node_modules')) {
          continue;
        }
        visit(join(path, name));
      }
    } else if (st.mtimeMs > newest) {
      newest = st.mtimeMs;
      newestFile = path;
    }
  };
  visit(web);
  return { newest, newestFile };
}

/** What decides the page's dependencies, by content. */
function packagesDigest() {
  const hash = createHash('sha256');
  for (const f of ['package.json', 'package-lock.json']) {
    const p = join(root, f);
    hash.update(`${f}\0`).update(existsSync(p) ? readFileSync(p) : '');
  }
  return hash.digest('hex');
}

const force = process.argv.includes('--force');
const built = existsSync(stamp) ? statSync(stamp).mtimeMs : 0;
const recorded = built > 0 ? /^packages: (\w+)$/m.exec(readFileSync(stamp, 'utf8'))?.[1] : undefined;
const digest = packagesDigest();
const { newest, newestFile } = newestSource();
if (!force && built > 0 && built >= newest && recorded === digest) {
  process.exit(0);
}
console.log(
  built === 0
    ? 'Building the signer page and panel (web/dist is missing)…'
    : `Building the signer page and panel (${built < newest ? relative(root, newestFile) : 'package.json or package-lock.json'} changed)…`,
);
const started = Date.now();
const { build } = await import('vite');
await build({ configFile: join(web, 'vite.config.ts'), logLevel: 'warn' });
writeFileSync(stamp, `${new Date().toISOString()}\npackages: ${digest}\n`);
console.log(`Signer page and panel built in ${((Date.now() - started) / 1000).toFixed(1)} s.`);
