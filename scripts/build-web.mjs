#!/usr/bin/env node
// Builds the signer page (web/ → web/dist) when the build is missing or older than its sources:
// run before `npm start` and `npm test`, so a fresh clone works with `npm ci && npm start`.
// `--force` builds regardless. A stamp written after a successful build marks it complete, so an
// interrupted build is redone.
import { existsSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const web = join(root, 'web');
const dist = join(web, 'dist');
const stamp = join(dist, '.build-stamp');

/** Newest modification time among the page's sources and what decides their dependencies. */
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
  for (const f of ['package.json', 'package-lock.json']) {
    const p = join(root, f);
    if (existsSync(p)) {
      visit(p);
    }
  }
  return { newest, newestFile };
}

const force = process.argv.includes('--force');
const built = existsSync(stamp) ? statSync(stamp).mtimeMs : 0;
const { newest, newestFile } = newestSource();
if (!force && built > 0 && built >= newest) {
  process.exit(0);
}
console.log(
  built === 0
    ? 'Building the signer page and panel (web/dist is missing)…'
    : `Building the signer page and panel (${relative(root, newestFile)} changed)…`,
);
const started = Date.now();
const { build } = await import('vite');
await build({ configFile: join(web, 'vite.config.ts'), logLevel: 'warn' });
writeFileSync(stamp, `${new Date().toISOString()}\n`);
console.log(`Signer page and panel built in ${((Date.now() - started) / 1000).toFixed(1)} s.`);
