// The client as integrators get it: `npm run build:client` makes dist/client, a package of its own
// (ESM, type declarations, nothing of the server, no run-time dependency); the example project in
// examples/client-project installs it (a local path: no registry) and runs against a live service:
// it creates a document, has it signed, and verifies the original_signed webhook that follows.
import { execFile, spawn } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { guardedFetch, isPublicAddress } from '../../src/net/url-guard.js';
import { type JobRunner, jobRunner } from '../helpers/jobs.js';
import { type TestServer, startTestServer } from '../helpers/server.js';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const DIST = join(ROOT, 'dist/client');

let s: TestServer;
let jobs: JobRunner;
const work = mkdtempSync(join(tmpdir(), 'sello-client-example-'));

beforeAll(async () => {
  await run(process.execPath, [join(ROOT, 'scripts/build-client.mjs')], { cwd: ROOT });
  // The real URL guard, letting the example's receiver on 127.0.0.1 through.
  s = await startTestServer({
    fetchUrl: (url, opts) => guardedFetch(url, { ...opts, isAllowedAddress: (ip) => ip === '127.0.0.1' || isPublicAddress(ip) }),
  });
  jobs = jobRunner(s.connectionString, s.deps);
}, 120_000);
afterAll(async () => {
  await jobs?.close();
  await s?.close();
  rmSync(work, { recursive: true, force: true });
});

const files = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? files(join(dir, e.name)) : [join(dir, e.name)]));

describe('the client package', () => {
  it('is ESM with declarations, declares no run-time dependency, and carries no server code', () => {
    const pkg = JSON.parse(readFileSync(join(DIST, 'package.json'), 'utf8'));
    expect(pkg).toMatchObject({
      name: '@sello/client',
      type: 'module',
      exports: { '.': { types: './client/index.d.ts', import: './client/index.js' } },
    });
    expect(pkg.dependencies).toBeUndefined();
    const built = files(DIST).map((f) => f.slice(DIST.length + 1));
    expect(built).toEqual(expect.arrayContaining(['client/index.js', 'client/index.d.ts', 'client/webhooks.js', 'README.md']));
    // Only the client and the API's shapes: nothing of http/, domain/, store/, pdf/, pki/.
    expect(built.filter((f) => !/^(client|schemas)\//.test(f) && !['package.json', 'README.md'].includes(f))).toEqual([]);
    for (const f of built.filter((x) => x.startsWith('client/') && x.endsWith('.js'))) {
      const imports = [...readFileSync(join(DIST, f), 'utf8').matchAll(/from\s+['"]([^'"]+)['"]/g)].map((m) => m[1]);
      expect(
        imports.filter((spec) => !spec.startsWith('./') && !spec.startsWith('node:')),
        f,
      ).toEqual([]);
    }
  });

  it('installs into the example project without a registry and runs it against a live service', async () => {
    const project = join(work, 'examples/client-project');
    cpSync(join(ROOT, 'examples/client-project'), project, { recursive: true });
    cpSync(join(ROOT, 'examples/contract.pdf'), join(work, 'examples/contract.pdf'));
    // The example depends on ../../dist/client: the same layout here.
    cpSync(DIST, join(work, 'dist/client'), { recursive: true });
    await run('npm', ['install', '--offline', '--no-audit', '--no-fund', '--loglevel=error'], { cwd: project });
    expect(existsSync(join(project, 'node_modules/@sello/client/client/index.js'))).toBe(true);

    const child = spawn(process.execPath, ['index.mjs'], {
      cwd: project,
      env: { ...process.env, SELLO_URL: s.baseUrl, WEB_ID: s.creds.webId, API_KEY: s.creds.apiKey, HOOK_HOST: '127.0.0.1' },
    });
    let out = '';
    child.stdout.on('data', (c) => (out += c));
    child.stderr.on('data', (c) => (out += c));
    const exited = new Promise<number | null>((r) => child.on('exit', r));
    // The service's job runner delivers the webhook while the example waits for it.
    let code: number | null | undefined;
    void exited.then((c) => (code = c));
    const deadline = Date.now() + 60_000;
    while (code === undefined && Date.now() < deadline) {
      await jobs.runDue();
      await new Promise((r) => setTimeout(r, 100));
    }
    if (code === undefined) {
      child.kill();
    }
    expect(code, out).toBe(0);
    expect(out).toMatch(/^1\. receiving original_signed at http:\/\/127\.0\.0\.1:\d+\/sello$/m);
    expect(out).toMatch(/^3\. signed: HTTP 200$/m);
    expect(out).toMatch(/^4\. verified webhook original_signed for [0-9a-f-]{36}$/m);
    expect(out).toMatch(/^5\. report: 1 signature\(s\), valid: true$/m);
  }, 120_000);
});
