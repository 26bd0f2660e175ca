// Runs pdfmake in worker threads. pdfmake lays a document out synchronously: on the main thread a
// huge definition would stall every request of the process, and nothing could stop it. In a
// worker it blocks only that worker, which is terminated when the render exceeds its time, and
// replaced on the next render.
import { Worker } from 'node:worker_threads';
import { TemplateError, type FillValues } from './types.js';

export interface PdfmakeRendererOptions {
  /** Renders at once, one worker each (default 1). */
  workers?: number;
  timeoutMs?: number;
}

interface Job {
  definition: unknown;
  values: FillValues;
  resolve: (pdf: Buffer) => void;
  reject: (err: Error) => void;
}

const BOOT = new URL('./worker-boot.mjs', import.meta.url);
const ENTRY = new URL('./pdfmake-worker.ts', import.meta.url).href;

export class PdfmakeRenderer {
  private readonly idle: Worker[] = [];
  private readonly queue: Job[] = [];
  private busy = 0;
  private nextId = 1;
  private closed = false;
  private readonly size: number;
  private readonly timeoutMs: number;

  constructor(opts: PdfmakeRendererOptions = {}) {
    this.size = Math.max(1, opts.workers ?? 1);
    this.timeoutMs = opts.timeoutMs ?? 30_000;
  }

  render(definition: unknown, values: FillValues): Promise<Buffer> {
    if (this.closed) {
      return Promise.reject(new TemplateError('RENDERER_UNAVAILABLE', 'the pdfmake renderer is closed'));
    }
    return new Promise<Buffer>((resolve, reject) => {
      this.queue.push({ definition, values, resolve, reject });
      this.pump();
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    await Promise.all(this.idle.splice(0).map((w) => w.terminate()));
  }

  private pump() {
    while (this.queue.length > 0 && this.busy < this.size) {
      const job = this.queue.shift()!;
      this.busy++;
      const worker = this.idle.pop() ?? new Worker(BOOT, { workerData: { entry: ENTRY } });
      void this.run(worker, job).finally(() => {
        this.busy--;
        this.pump();
      });
    }
  }

  private run(worker: Worker, job: Job): Promise<void> {
    const id = this.nextId++;
    return new Promise<void>((done) => {
      const finish = (keep: boolean) => {
        clearTimeout(timer);
        worker.off('message', onMessage);
        worker.off('error', onError);
        if (keep && !this.closed) {
          this.idle.push(worker);
        } else {
          void worker.terminate();
        }
        done();
      };
      const onMessage = (m: {
        id: number;
        pdf?: Uint8Array;
        error?: { problem: TemplateError['problem']; message: string; details?: Record<string, unknown> };
      }) => {
        if (m.id !== id) {
          return;
        }
        if (m.error) {
          job.reject(new TemplateError(m.error.problem, m.error.message, m.error.details));
        } else {
          job.resolve(Buffer.from(m.pdf!));
        }
        finish(true);
      };
      const onError = (err: Error) => {
        job.reject(new TemplateError('RENDERER_UNAVAILABLE', `the pdfmake worker failed: ${err.message}`));
        finish(false);
      };
      const timer = setTimeout(() => {
        job.reject(new TemplateError('RENDER_TIMEOUT', `pdfmake did not finish within ${this.timeoutMs} ms`));
        finish(false);
      }, this.timeoutMs);
      worker.on('message', onMessage);
      worker.on('error', onError);
      worker.postMessage({ id, definition: job.definition, values: job.values });
    });
  }
}
