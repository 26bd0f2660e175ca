// How often the signature report reaches the verdict the public signature-validation corpora assert
// (not part of `npm run bench`: it needs those corpora on disk). Usage:
//
//   npm run bench:corpus -- --manifest FILE --root DIR [--json OUT] [--concurrency N] [--only TEXT]
//   (or BENCH_CORPUS_MANIFEST and BENCH_CORPUS_ROOT instead of the two options)
//
// The manifest is a JSON array of {repo, commit, path, expect, alsoAccepted?, attack, why}: a file
// of a public repository (`owner/name`, at that commit), the verdict it must get (`invalid`,
// `modified-after-signing`, `valid`; see bench/corpus-verdict.ts), a second verdict also right
// where both readings are fair, the attack it carries, and the upstream test that asserts the
// verdict. The expected verdicts come from those projects' tests, never from this service's output.
// Nothing is downloaded: the operator clones each repository at the manifest's commit under the
// root, so that each file is at ROOT/<repo>/<path> (e.g. `git clone` into ROOT/esig/dss, then
// `git checkout COMMIT`). A file that is not there stops the run before the server starts.
//
// Each file goes through the real service as a client sends it: a server as `npm run bench` starts
// it (bench/server.ts: fresh data directory, embedded PostgreSQL, one account, 127.0.0.1 only), then
// `POST /api/report` with the file as multipart, HMAC-signed by the TypeScript client. It prints the
// share right per expected verdict and per repository, whether each attack was flagged at all,
// every valid control not judged valid, and each wrong file with the report's reason. Prints
// figures; asserts nothing.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { SelloApiError, SelloClient } from '../src/client/index.js';
import { EXPECTED, type Expected, isFlagged, isRight, judgeReport, type Judgement, type Verdict } from './corpus-verdict.js';
import { startServer, stopServer, type Server } from './server-process.js';

const USAGE = `usage: npm run bench:corpus -- --manifest FILE --root DIR [--json OUT] [--concurrency N] [--only TEXT]
  --manifest FILE   JSON array of {repo, commit, path, expect, alsoAccepted?, attack, why} (or BENCH_CORPUS_MANIFEST)
  --root DIR        where the repositories are cloned: each file is read at DIR/<repo>/<path> (or BENCH_CORPUS_ROOT)
  --json OUT        also write every file's result and the totals to OUT as JSON
  --concurrency N   reports asked at once (default 2)
  --only TEXT       only the entries whose repo or path contains TEXT`;

interface Entry {
  repo: string;
  commit: string;
  path: string;
  expect: Expected;
  alsoAccepted?: Expected[];
  attack: string;
  why: string;
}

interface Result extends Judgement {
  entry: Entry;
  right: boolean;
  ms: number;
}

function fail(message: string): never {
  console.error(`${message}\n\n${USAGE}`);
  process.exit(2);
}

function options() {
  let parsed: ReturnType<typeof parse>;
  const parse = () =>
    parseArgs({
      options: {
        manifest: { type: 'string' },
        root: { type: 'string' },
        json: { type: 'string' },
        concurrency: { type: 'string' },
        only: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    });
  try {
    parsed = parse();
  } catch (err) {
    fail((err as Error).message);
  }
  const v = parsed.values;
  if (v.help) {
    console.log(USAGE);
    process.exit(0);
  }
  const manifest = v.manifest ?? process.env.BENCH_CORPUS_MANIFEST;
  const root = v.root ?? process.env.BENCH_CORPUS_ROOT;
  if (!manifest) {
    fail('missing --manifest (or BENCH_CORPUS_MANIFEST): the list of files and the verdicts their projects assert');
  }
  if (!root) {
    fail('missing --root (or BENCH_CORPUS_ROOT): the folder holding the cloned repositories, one per <owner>/<name>');
  }
  const concurrency = Number(v.concurrency ?? 2);
  if (!Number.isInteger(concurrency) || concurrency < 1 || concurrency > 16) {
    fail(`--concurrency must be an integer from 1 to 16, got ${v.concurrency}`);
  }
  return { manifest: resolve(manifest), root: resolve(root), json: v.json, concurrency, only: v.only };
}

/** The manifest, checked entry by entry: a malformed entry names its index and field. */
function readManifest(file: string): Entry[] {
  let data: unknown;
  try {
    data = JSON.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    fail(`manifest ${file}: ${(err as Error).message}`);
  }
  if (!Array.isArray(data)) {
    fail(`manifest ${file}: expected a JSON array of entries`);
  }
  return data.map((raw: Record<string, unknown>, i) => {
    const at = `manifest entry ${i}`;
    for (const key of ['repo', 'commit', 'path', 'expect', 'attack', 'why']) {
      if (typeof raw?.[key] !== 'string' || raw[key] === '') {
        fail(`${at}: "${key}" must be a non-empty string`);
      }
    }
    if (!/^[\w.-]+\/[\w.-]+$/.test(raw.repo as string)) {
      fail(`${at}: "repo" must be owner/name, got ${raw.repo}`);
    }
    if ((raw.path as string).split('/').includes('..')) {
      fail(`${at}: "path" must stay inside its repository, got ${raw.path}`);
    }
    if (!(EXPECTED as readonly unknown[]).includes(raw.expect)) {
      fail(`${at}: "expect" must be one of ${EXPECTED.join(', ')}, got ${raw.expect}`);
    }
    const also = raw.alsoAccepted ?? [];
    if (!Array.isArray(also) || also.some((x) => !(EXPECTED as readonly unknown[]).includes(x) || x === 'valid')) {
      fail(`${at}: "alsoAccepted" must list invalid or modified-after-signing (valid is never an alternative)`);
    }
    return raw as unknown as Entry;
  });
}

async function judgeFile(client: SelloClient, root: string, entry: Entry): Promise<Result> {
  const bytes = readFileSync(join(root, entry.repo, entry.path));
  const t0 = performance.now();
  let j: Judgement;
  try {
    j = judgeReport(await client.verifyPdf(bytes));
  } catch (err) {
    if (err instanceof SelloApiError) {
      const verdict: Verdict = err.status === 422 ? 'refused' : 'error';
      j = { verdict, reason: `${err.status} ${err.code ?? ''}: ${err.message}` };
    } else {
      j = { verdict: 'error', reason: (err as Error).message };
    }
  }
  const ms = performance.now() - t0;
  return { ...j, entry, ms, right: isRight(j.verdict, entry.expect, entry.alsoAccepted) };
}

/** Every entry through the server, `concurrency` at a time, in manifest order in the result. */
async function judgeAll(server: Server, root: string, entries: Entry[], concurrency: number): Promise<Result[]> {
  const client = new SelloClient({ baseUrl: server.baseUrl, webId: server.webId, apiKey: server.apiKey });
  const results: Result[] = new Array(entries.length);
  let next = 0;
  let done = 0;
  const worker = async () => {
    while (next < entries.length) {
      const i = next++;
      results[i] = await judgeFile(client, root, entries[i]);
      done++;
      if (process.stderr.isTTY && (done % 10 === 0 || done === entries.length)) {
        process.stderr.write(`   ${done}/${entries.length} files\r`);
      }
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  if (process.stderr.isTTY) {
    process.stderr.write('\n');
  }
  return results;
}

const pct = (right: number, n: number) => (n ? `${((100 * right) / n).toFixed(1)}%` : 'n/a');
const label = (e: Entry) => `${e.repo}:${e.path}`;
const expected = (e: Entry) => [e.expect, ...(e.alsoAccepted ?? [])].join(' | ');

function shareBy(results: Result[], key: (r: Result) => string): [string, number, number][] {
  const groups = new Map<string, [number, number]>();
  for (const r of results) {
    const g = groups.get(key(r)) ?? [0, 0];
    g[0] += r.right ? 1 : 0;
    g[1] += 1;
    groups.set(key(r), g);
  }
  return [...groups.entries()].sort(([a], [b]) => a.localeCompare(b)).map(([k, [right, n]]) => [k, right, n]);
}

function print(results: Result[], manifest: string, root: string) {
  const right = results.filter((r) => r.right).length;
  console.log(`\nmanifest ${manifest}, root ${root}: ${results.length} files`);
  console.log(`right ${right}/${results.length} (${pct(right, results.length)})\n`);

  console.log('per expected verdict');
  for (const [k, ok, n] of shareBy(results, (r) => r.entry.expect)) {
    console.log(`   ${k.padEnd(24)} ${`${ok}/${n}`.padStart(7)}  ${pct(ok, n).padStart(6)}`);
  }
  console.log('per repository');
  for (const [k, ok, n] of shareBy(results, (r) => r.entry.repo)) {
    console.log(`   ${k.padEnd(24)} ${`${ok}/${n}`.padStart(7)}  ${pct(ok, n).padStart(6)}`);
  }

  const verdicts: Verdict[] = ['invalid', 'modified-after-signing', 'valid', 'unsigned', 'refused', 'error'];
  console.log('expected (rows) × got (columns)');
  console.log(`   ${''.padEnd(24)} ${verdicts.map((v) => v.slice(0, 8).padStart(9)).join('')}`);
  for (const e of EXPECTED) {
    const row = verdicts.map((v) => String(results.filter((r) => r.entry.expect === e && r.verdict === v).length).padStart(9));
    console.log(`   ${e.padEnd(24)} ${row.join('')}`);
  }

  // An attack counts as flagged when the file is not accepted, whichever verdict refuses it.
  const attacks = results.filter((r) => r.entry.expect !== 'valid');
  const byAttack = new Map<string, Result[]>();
  for (const r of attacks) {
    byAttack.set(r.entry.attack, [...(byAttack.get(r.entry.attack) ?? []), r]);
  }
  const flaggedAll = [...byAttack.values()].filter((rs) => rs.every((r) => isFlagged(r.verdict))).length;
  console.log(`\nattacks flagged (any verdict but valid): ${flaggedAll}/${byAttack.size} attacks, every file of each`);
  for (const [attack, rs] of [...byAttack.entries()].sort(([a], [b]) => a.localeCompare(b))) {
    const flagged = rs.filter((r) => isFlagged(r.verdict)).length;
    const mark = flagged === rs.length ? 'flagged' : flagged ? 'PARTLY ' : 'MISSED ';
    console.log(`   ${mark} ${flagged}/${rs.length}  ${attack}  [${rs.map((r) => r.verdict).join(', ')}]`);
  }

  const controls = results.filter((r) => r.entry.expect === 'valid');
  const intact = controls.filter((r) => r.verdict === 'valid').length;
  console.log(`\nvalid controls judged valid: ${intact}/${controls.length}`);

  const wrong = results.filter((r) => !r.right);
  console.log(`\nwrong files: ${wrong.length}`);
  for (const r of wrong) {
    console.log(`   ${label(r.entry)}\n      expected ${expected(r.entry)}, got ${r.verdict} (${r.entry.attack})\n      ${r.reason}`);
  }
  // A refusal counts as right where invalid is expected, but its reason may have nothing to do
  // with the signature (a reading limit): list them all so that such a hit is seen for what it is.
  const refused = results.filter((r) => r.verdict === 'refused');
  console.log(`\nrefused (422) files, right or wrong: ${refused.length}`);
  for (const r of refused) {
    console.log(`   ${r.right ? 'right' : 'WRONG'} ${label(r.entry)}: ${r.reason}`);
  }
  const times = results.map((r) => r.ms).sort((a, b) => a - b);
  console.log(
    `\ntime per report: median ${times[Math.floor(times.length / 2)]?.toFixed(0)} ms, max ${times.at(-1)?.toFixed(0)} ms (${
      times.at(-1) === undefined ? '' : label(results.find((r) => r.ms === times.at(-1))!.entry)
    })`,
  );
  const goal = right / Math.max(1, results.length) >= 0.98 && flaggedAll === byAttack.size && intact === controls.length;
  console.log(`goal (≥ 98% right, every attack flagged, every valid control valid): ${goal ? 'met' : 'not met'}`);
}

async function main() {
  const o = options();
  let entries = readManifest(o.manifest);
  if (o.only) {
    entries = entries.filter((e) => e.repo.includes(o.only!) || e.path.includes(o.only!));
  }
  const missing = entries.filter((e) => !existsSync(join(o.root, e.repo, e.path)));
  if (missing.length > 0) {
    fail(
      `${missing.length} of ${entries.length} files are not under ${o.root}; clone each repository at the manifest's commit ` +
        `(ROOT/<owner>/<name>), e.g. the first missing:\n${missing
          .slice(0, 10)
          .map((e) => `   ${e.repo} @ ${e.commit}: ${e.path}`)
          .join('\n')}`,
    );
  }
  if (entries.length === 0) {
    fail('no entry to check');
  }
  const dataDir = await mkdtemp(join(tmpdir(), 'sello-corpus-'));
  let server: Server | undefined;
  const cleanup = async () => {
    await stopServer(server);
    await rm(dataDir, { recursive: true, force: true });
  };
  process.once('SIGINT', () => {
    console.error('\ninterrupted: stopping the server and removing', dataDir);
    void cleanup().finally(() => process.exit(130));
  });
  try {
    server = await startServer(dataDir);
    console.log(`server: ${server.baseUrl} (pid ${server.child.pid}), ${entries.length} files, concurrency ${o.concurrency}`);
    const results = await judgeAll(server, o.root, entries, o.concurrency);
    print(results, o.manifest, o.root);
    if (o.json) {
      const files = results.map((r) => ({ ...r.entry, got: r.verdict, right: r.right, reason: r.reason, ms: Math.round(r.ms) }));
      const summary = Object.fromEntries(shareBy(results, (r) => r.entry.expect).map(([k, ok, n]) => [k, { right: ok, total: n }]));
      writeFileSync(
        o.json,
        `${JSON.stringify({ manifest: o.manifest, total: results.length, right: files.filter((f) => f.right).length, perExpected: summary, files }, null, 1)}\n`,
      );
      console.log(`results written to ${o.json}`);
    }
  } finally {
    await cleanup();
  }
}

await main();
