#!/usr/bin/env node
// Builds the API client as a package an integrator installs (`npm install <path>/dist/client`):
// ESM JavaScript and type declarations of src/client, with the API schemas it takes its types from
// (src/schemas: shapes only; the client imports nothing of them at run time), and a package.json of
// its own. The server's code is not part of it: the build fails if anything the client imports at
// run time lies outside the package or is not a Node built-in.
import { execFileSync } from 'node:child_process';
import { readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(fileURLToPath(new URL('..', import.meta.url)));
const out = join(root, 'dist/client');
rmSync(out, { recursive: true, force: true });
execFileSync(process.execPath, [join(root, 'node_modules/typescript/bin/tsc'), '-p', join(root, 'tsconfig.client.json')], {
  stdio: 'inherit',
});

const files = (dir) => readdirSync(dir).flatMap((f) => (statSync(join(dir, f)).isDirectory() ? files(join(dir, f)) : [join(dir, f)]));

// Run-time imports of the client's JavaScript, followed from its entry: only relative files of the
// package and node: built-ins may appear.
const seen = new Set();
const follow = (file) => {
  if (seen.has(file)) {
    return;
  }
  seen.add(file);
  const code = readFileSync(file, 'utf8');
  for (const [, spec] of code.matchAll(/^\s*(?:import|export)\s[^'"]*?from\s+['"]([^'"]+)['"]/gm)) {
    if (spec.startsWith('node:')) {
      continue;
    }
    if (!spec.startsWith('.')) {
      throw new Error(`${relative(out, file)} imports ${spec} at run time: the client package must not depend on it`);
    }
    follow(resolve(file, '..', spec));
  }
};
follow(join(out, 'client/index.js'));
follow(join(out, 'client/embed.js'));

const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
writeFileSync(
  join(out, 'package.json'),
  `${JSON.stringify(
    {
      name: '@sello/client',
      version: pkg.version,
      description: 'Typed client of the Sello e-signature API: signed requests, every operation, webhook verification',
      license: pkg.license,
      type: 'module',
      engines: { node: '>=20.19' },
      exports: {
        '.': { types: './client/index.d.ts', import: './client/index.js' },
        // Browser code: the signer page in an iframe of the integrator's site, and its events.
        './embed': { types: './client/embed.d.ts', import: './client/embed.js' },
      },
      types: './client/index.d.ts',
      // The declarations name TypeBox's Static type (the API schemas are TypeBox); nothing imports it at run time.
      peerDependencies: { '@sinclair/typebox': pkg.dependencies['@sinclair/typebox'] },
      peerDependenciesMeta: { '@sinclair/typebox': { optional: true } },
    },
    null,
    2,
  )}\n`,
);
writeFileSync(join(out, 'README.md'), readFileSync(join(root, 'docs/client.md'), 'utf8'));
console.log(`client package built in ${relative(root, out)} (${files(out).length} files; run-time modules: ${seen.size})`);
