// The build the service runs (scripts/build-server.mjs → build/): made afresh in a copy of the
// checkout, run by bin/sello.js, with tsx made unavailable the way an install without it is
// (helpers/refuse-tsx.mjs): the command and a PDF jail worker start from the build without it. A
// source newer than the build is run through tsx instead, said on stderr, until the next build.
import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readdirSync, rmSync, statSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makePdf } from '../helpers/pdfs.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const REFUSE_TSX = join(ROOT, 'test/helpers/refuse-tsx.mjs');
let work: string;

/** `node ARGS` in the copy, to completion. */
function node(args: string[], opts: { refuseTsx?: boolean } = {}) {
  const r = spawnSync(process.execPath, [...(opts.refuseTsx ? ['--import', REFUSE_TSX] : []), ...args], {
    cwd: work,
    encoding: 'utf8',
    timeout: 120_000,
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr, text: `exit ${r.status}\n${r.stdout}\n${r.stderr}` };
}

/** A PDF jail of the given module, asked for the pages of doc.pdf, in a child process. */
function inspectIn(jailModule: string, refuseTsx: boolean) {
  const script = scriptFile(
    'inspect.mjs',
    `
    import { readFileSync } from 'node:fs';
    const { PdfJail } = await import(${JSON.stringify(pathToFileURL(jailModule).href)});
    const jail = new PdfJail({ workers: 1, queue: 1, timeoutMs: 60_000, memoryMb: 256, inflate: { maxTotalBytes: 1e8 } });
    try {
      const info = await jail.inspect(readFileSync('doc.pdf'), 10);
      console.log(JSON.stringify({ pageCount: info.pageCount }));
    } finally {
      await jail.close();
    }`,
  );
  return node([script], { refuseTsx });
}

/** A script file in the copy (not `-e`: worker threads inherit the process's flags, --input-type included). */
function scriptFile(name: string, text: string): string {
  writeFileSync(join(work, name), text);
  return name;
}

beforeAll(async () => {
  // A checkout of its own: the command, the build script, the sources and the compiler settings,
  // with the repository's installed packages.
  work = mkdtempSync(join(tmpdir(), 'sello-build-'));
  for (const part of ['bin', 'src', 'scripts/build-server.mjs', 'tsconfig.json', 'package.json']) {
    cpSync(join(ROOT, part), join(work, part), { recursive: true });
  }
  symlinkSync(join(ROOT, 'node_modules'), join(work, 'node_modules'));
  writeFileSync(join(work, 'doc.pdf'), await makePdf([1, 2, 3].map(() => ({ width: 595.28, height: 841.89 }))));
});
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('the build of the server', () => {
  it.sequential('compiles every source to a module beside it and copies the other files, then is current', () => {
    const built = node(['scripts/build-server.mjs']);
    expect(built.code, built.text).toBe(0);
    expect(built.stdout).toMatch(/^Server built in build \(src\/ has not been built\)/);
    const files = (dir: string): string[] =>
      readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
        e.isDirectory() ? files(join(dir, e.name)).map((f) => `${e.name}/${f}`) : [e.name],
      );
    const sources = files(join(work, 'src')).filter((f) => !f.endsWith('.d.ts'));
    const expected = sources.map((f) => f.replace(/\.ts$/, '.js')).sort();
    const output = files(join(work, 'build')).filter((f) => !f.endsWith('.map') && f !== '.build-stamp');
    expect(output.sort()).toEqual(expected);
    expect(expected).toContain('store/migrations/0001_foundation.sql');
    expect(expected).toContain('jail/worker-boot.mjs');

    const again = node(['scripts/build-server.mjs']);
    expect(again.code, again.text).toBe(0);
    expect(again.stdout).toBe('');
  });

  it.sequential('runs the command from the build, without tsx', () => {
    const r = node(['bin/sello.js', '--help'], { refuseTsx: true });
    expect(r.code, r.text).toBe(0);
    expect(r.stdout).toMatch(/^usage: sello <command>/);
    expect(r.stderr).toBe('');
  });

  it.sequential('boots a PDF jail worker from the build without tsx, while a worker on a source needs it', () => {
    const fromBuild = inspectIn(join(work, 'build/jail/pdf-jail.js'), true);
    expect(fromBuild.code, fromBuild.text).toBe(0);
    expect(JSON.parse(fromBuild.stdout)).toEqual({ pageCount: 3 });

    // A worker on a source (an entry named .ts, as when the sources run) needs tsx: with it refused,
    // that worker cannot start, so the check above would have seen a build that needed it.
    const onSource = (refuseTsx: boolean) => {
      const script = scriptFile(
        'boot.mjs',
        `
        import { Worker } from 'node:worker_threads';
        const w = new Worker(new URL(${JSON.stringify(pathToFileURL(join(work, 'build/jail/worker-boot.mjs')).href)}), {
          workerData: { entry: ${JSON.stringify(pathToFileURL(join(work, 'src/jail/pdf-jail-worker.ts')).href)} },
        });
        w.on('message', (m) => { console.log(JSON.stringify(m)); void w.terminate(); });
        w.on('error', (e) => console.log(JSON.stringify({ error: e.message })));`,
      );
      return node([script], { refuseTsx });
    };
    expect(onSource(true).stdout).toContain('tsx is not installed here');
    expect(onSource(false).stdout.trim()).toBe('{"ready":true}');
  });

  it.sequential('runs a source newer than the build through tsx, saying so, until the next build', () => {
    const main = join(work, 'src/main.ts');
    const stamp = statSync(join(work, 'build/.build-stamp')).mtime;
    utimesSync(main, new Date(stamp.getTime() + 1000), new Date(stamp.getTime() + 1000));

    const r = node(['bin/sello.js', '--help']);
    expect(r.code, r.text).toBe(0);
    expect(r.stdout).toMatch(/^usage: sello <command>/);
    expect(r.stderr).toBe(
      'sello: src/main.ts changed since the last build: running the sources through tsx (npm run build for the faster start)\n',
    );
    const refused = node(['bin/sello.js', '--help'], { refuseTsx: true });
    expect(refused.code, refused.text).not.toBe(0);
    expect(refused.stderr).toContain('tsx');

    const rebuilt = node(['scripts/build-server.mjs']);
    expect(rebuilt.stdout).toMatch(/^Server built in build \(src\/main\.ts changed since the last build\)/);
    const after = node(['bin/sello.js', '--help'], { refuseTsx: true });
    expect(after.code, after.text).toBe(0);
    expect(after.stderr).toBe('');
  });
});
