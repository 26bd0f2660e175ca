// Runs pdfmake in worker threads. pdfmake lays a document out synchronously: on the main thread a
// huge definition would stall every request of the process, and nothing could stop it. In a
// worker (jail/worker-pool.ts) it blocks only that worker, which is terminated when the render
// exceeds its time, and replaced on the next render.
import { PoolBusyError, WorkerLimitError, WorkerPool, WorkerTaskError, workerModule } from '../jail/worker-pool.js';
import { TemplateError, type FillValues } from './types.js';

export interface PdfmakeRendererOptions {
  /** Renders at once, one worker each (default 1). */
  workers?: number;
  timeoutMs?: number;
}

export class PdfmakeRenderer {
  private readonly pool: WorkerPool;
  private readonly timeoutMs: number;

  constructor(opts: PdfmakeRendererOptions = {}) {
    this.timeoutMs = opts.timeoutMs ?? 30_000;
    this.pool = new WorkerPool({
      entry: workerModule('pdfmake-worker', import.meta.url),
      size: opts.workers ?? 1,
      timeoutMs: this.timeoutMs,
    });
  }

  async render(definition: unknown, values: FillValues): Promise<Buffer> {
    try {
      return Buffer.from(await this.pool.run<Uint8Array>('render', { definition, values }));
    } catch (err) {
      if (err instanceof WorkerTaskError) {
        const d = err.failure.data as { problem: TemplateError['problem']; details?: Record<string, unknown> };
        throw new TemplateError(d.problem, err.message, d.details);
      }
      if (err instanceof WorkerLimitError && err.limit === 'time') {
        throw new TemplateError('RENDER_TIMEOUT', `pdfmake did not finish within ${this.timeoutMs} ms`);
      }
      if (err instanceof PoolBusyError) {
        throw new TemplateError('RENDERER_UNAVAILABLE', 'the pdfmake renderer is closed');
      }
      throw new TemplateError('RENDERER_UNAVAILABLE', `the pdfmake worker failed: ${(err as Error).message}`);
    }
  }

  close(): Promise<void> {
    return this.pool.close();
  }
}
