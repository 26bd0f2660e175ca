// The quickstart of examples/ runs as a new user runs it, against a real server: create, sign,
// download, save, report. The saved PDF is judged by pdfsig, trusting the service's root.
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { type AddressInfo, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { pdfsig } from '../helpers/validators.js';

const SCRIPT = fileURLToPath(new URL('../../examples/quickstart.mjs', import.meta.url));
let s: TestServer;
let out: string;
beforeAll(async () => {
  s = await startTestServer();
  out = await mkdtemp(join(tmpdir(), 'sello-quickstart-'));
});
afterAll(async () => {
  await s?.close();
  await rm(out, { recursive: true, force: true });
});

it('creates, signs, downloads a PDF that pdfsig validates, and prints the report', async () => {
  const env = { ...process.env, BASE: s.baseUrl, WEB_ID: s.creds.webId, API_KEY: s.creds.apiKey, OUT: out };
  const { stdout } = await promisify(execFile)(process.execPath, [SCRIPT], { env });
  expect(stdout).toMatch(/^1\. created /m);
  expect(stdout).toMatch(/^2\. signed: \{"status":"signed"/m);
  expect(stdout).toMatch(/^3\. saved .*contract-signed\.pdf/m);
  expect(stdout).toMatch(/^4\. signature of Ana García: validSignature true, coversDocument true, .* certificate good$/m);
  const rootPem = await (await fetch(`${s.baseUrl}/pki/ca.pem`)).text();
  const report = await pdfsig(await readFile(join(out, 'contract-signed.pdf')), rootPem);
  expect(report.signatures.map((x) => x.valid)).toEqual([true]);
});

it('with a wrong API key: one line saying 401 and to check WEB_ID and API_KEY, no stack trace, exit 1', async () => {
  const env = { ...process.env, BASE: s.baseUrl, WEB_ID: s.creds.webId, API_KEY: 'not-the-key', OUT: out };
  const r = await promisify(execFile)(process.execPath, [SCRIPT], { env }).catch(
    (e: { code: number; stdout: string; stderr: string }) => e,
  );
  expect((r as { code: number }).code).toBe(1);
  expect((r as { stdout: string }).stdout).toBe('');
  const lines = (r as { stderr: string }).stderr.trim().split('\n');
  expect(lines).toEqual([
    `POST /developers/json: 401 Unauthorized: check WEB_ID and API_KEY (the credentials the first start printed, for the service at ${s.baseUrl}).`,
  ]);
});

it('with BASE where nothing listens: one line naming BASE and the reason, no stack trace, exit 1', async () => {
  // A port just freed: nothing listens there.
  const closed = createServer();
  await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
  const base = `http://127.0.0.1:${(closed.address() as AddressInfo).port}`;
  await new Promise((r) => closed.close(r));
  const env = { ...process.env, BASE: base, WEB_ID: s.creds.webId, API_KEY: s.creds.apiKey, OUT: out };
  const r = await promisify(execFile)(process.execPath, [SCRIPT], { env }).catch(
    (e: { code: number; stdout: string; stderr: string }) => e,
  );
  expect((r as { code: number }).code).toBe(1);
  expect((r as { stdout: string }).stdout).toBe('');
  expect((r as { stderr: string }).stderr.trim().split('\n')).toEqual([
    `Could not reach ${base} (ECONNREFUSED): is Sello running there? Set BASE to its address.`,
  ]);
});

it('says which variables are missing, exit 2', async () => {
  const env = { ...process.env, WEB_ID: '', API_KEY: '' };
  const r = await promisify(execFile)(process.execPath, [SCRIPT], { env }).catch((e: { code: number; stderr: string }) => e);
  expect((r as { code: number }).code).toBe(2);
  expect((r as { stderr: string }).stderr).toContain('Set WEB_ID and API_KEY');
});
