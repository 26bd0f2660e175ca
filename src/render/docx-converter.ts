// docx → PDF with LibreOffice headless, a bounded number of conversions at a time.
// Each conversion runs in its own temporary directory with its own LibreOffice profile: one
// soffice per profile is the rule (a second one on a shared profile hands its work to the first
// over a pipe, or fails on the profile lock), and a fresh profile means no state, macro setting or
// recovery data carries from one customer's document to the next.
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { TemplateError } from './types.js';

export interface DocxConverterOptions {
  /** The LibreOffice program; a bare name is looked up on `searchPath`. Default `soffice`. */
  binary?: string;
  /** Conversions running at once; others wait their turn in order. Default 2. */
  concurrency?: number;
  /** Longest a conversion may run before its processes are killed. Default 60 000 ms. */
  timeoutMs?: number;
  /** Where the per-conversion directories are made. Default the system temp directory. */
  tmpDir?: string;
  /** PATH of the child. Default the usual system directories. */
  searchPath?: string;
}

const DEFAULT_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';
/** A zip archive's local file header: every docx starts with it. */
const ZIP_MAGIC = [0x50, 0x4b, 0x03, 0x04];
/** How much of LibreOffice's output is kept for the error report. */
const OUTPUT_TAIL = 4000;

export class DocxConverter {
  private readonly binary: string;
  private readonly concurrency: number;
  private readonly timeoutMs: number;
  private readonly tmpDir: string;
  private readonly searchPath: string;
  private active = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(options: DocxConverterOptions = {}) {
    this.binary = options.binary ?? 'soffice';
    this.concurrency = Math.max(1, Math.floor(options.concurrency ?? 2));
    this.timeoutMs = options.timeoutMs ?? 60_000;
    this.tmpDir = options.tmpDir ?? tmpdir();
    this.searchPath = options.searchPath ?? DEFAULT_PATH;
  }

  /** Conversions running now. */
  get running(): number {
    return this.active;
  }

  /** Conversions waiting for a slot. */
  get queued(): number {
    return this.waiting.length;
  }

  /** The PDF LibreOffice makes of the docx. */
  async convert(docx: Uint8Array): Promise<Buffer> {
    // LibreOffice guesses the format of what it is given and would happily render a text file or
    // another office format; only a zip may go on to the docx import filter.
    if (docx.length < 4 || ZIP_MAGIC.some((b, i) => docx[i] !== b)) {
      throw new TemplateError('INVALID_TEMPLATE', 'The document is not a docx file (not a zip archive)');
    }
    await this.acquire();
    try {
      return await this.run(docx);
    } finally {
      this.release();
    }
  }

  private acquire(): Promise<void> {
    if (this.active < this.concurrency) {
      this.active++;
      return Promise.resolve();
    }
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  private release(): void {
    const next = this.waiting.shift();
    if (next) {
      // The slot passes straight to the oldest waiter, so a newcomer cannot overtake it.
      next();
    } else {
      this.active--;
    }
  }

  private async run(docx: Uint8Array): Promise<Buffer> {
    const dir = await mkdtemp(join(this.tmpDir, 'sello-docx-'));
    try {
      const input = join(dir, 'in.docx');
      await writeFile(input, docx);
      const profile = pathToFileURL(join(dir, 'profile')).href;
      const args = [
        '--headless',
        '--norestore',
        '--nolockcheck',
        `-env:UserInstallation=${profile}`,
        // The docx filter only: no format detection on a customer's bytes.
        '--infilter=MS Word 2007 XML',
        '--convert-to',
        'pdf',
        '--outdir',
        dir,
        input,
      ];
      const { stdout, stderr, code, signal } = await this.spawnSoffice(args, dir);
      try {
        return await readFile(join(dir, 'in.pdf'));
      } catch {
        throw new TemplateError('RENDERER_UNAVAILABLE', 'LibreOffice did not convert the document', {
          exitCode: code,
          signal,
          stderr: tail(stderr, OUTPUT_TAIL),
          stdout: tail(stdout, OUTPUT_TAIL),
        });
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }

  private spawnSoffice(
    args: string[],
    dir: string,
  ): Promise<{ stdout: string; stderr: string; code: number | null; signal: string | null }> {
    return new Promise((resolve, reject) => {
      const child = spawn(this.binary, args, {
        // A process group of its own: soffice is a script that starts oosplash, which starts
        // soffice.bin; killing the script alone would leave the real converter running.
        detached: true,
        stdio: ['ignore', 'pipe', 'pipe'],
        // Not the server's environment: LibreOffice reads untrusted documents and needs none of
        // our secrets. HOME and TMPDIR point into the conversion's directory, so nothing it
        // writes (~/.config, fontconfig cache, temp files) outlives it or leaks between runs.
        env: { PATH: this.searchPath, HOME: dir, TMPDIR: dir, LANG: 'C.UTF-8', SAL_USE_VCLPLUGIN: 'svp' },
      });
      let stdout = '';
      let stderr = '';
      child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout = tail(stdout + d, OUTPUT_TAIL)));
      child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr = tail(stderr + d, OUTPUT_TAIL)));
      let timedOut = false;
      const timer = setTimeout(() => {
        timedOut = true;
        killGroup(child.pid);
      }, this.timeoutMs);
      child.on('error', (err: NodeJS.ErrnoException) => {
        clearTimeout(timer);
        if (err.code === 'ENOENT' || err.code === 'EACCES') {
          reject(
            new TemplateError('RENDERER_UNAVAILABLE', 'LibreOffice is not installed; install the Debian package libreoffice-writer-nogui', {
              binary: this.binary,
              cause: err.code,
            }),
          );
        } else {
          killGroup(child.pid);
          reject(new TemplateError('RENDERER_UNAVAILABLE', `LibreOffice could not be started: ${err.message}`, { binary: this.binary }));
        }
      });
      // 'close' waits for the pipes, which every process of the group holds: when it fires, the
      // whole group is gone and its directory can be removed.
      child.on('close', (code, signal) => {
        clearTimeout(timer);
        if (timedOut) {
          reject(
            new TemplateError('RENDER_TIMEOUT', `LibreOffice took longer than ${this.timeoutMs} ms and was stopped`, {
              timeoutMs: this.timeoutMs,
            }),
          );
        } else {
          resolve({ stdout, stderr, code, signal });
        }
      });
    });
  }
}

function killGroup(pid: number | undefined): void {
  if (pid === undefined) {
    return;
  }
  try {
    // Negative pid: the whole process group the detached child leads.
    process.kill(-pid, 'SIGKILL');
  } catch {
    // Already gone.
  }
}

function tail(text: string, max: number): string {
  return text.length > max ? text.slice(text.length - max) : text;
}
