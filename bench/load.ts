// A closed-loop load generator: `concurrency` workers, each on its own keep-alive connection,
// sending one request after another until a time or request budget runs out. Plain node:http so the
// client's own CPU cost stays small and visible (it shares the machine with the server).
import { Agent, request } from 'node:http';

export interface BenchRequest {
  method: 'GET' | 'POST';
  path: string;
  headers: Record<string, string>;
  body?: Buffer;
}

export interface LoadOptions {
  baseUrl: string;
  concurrency: number;
  /** Stop issuing requests after this long (ms)… */
  durationMs?: number;
  /** …or after this many requests, whichever comes first. */
  maxRequests?: number;
  /** Builds request number i (unique documents, fresh signatures). */
  build: (i: number) => BenchRequest;
  /** The status every answer should have (default 200); any other counts as an error. */
  expectStatus?: number;
}

export interface LoadResult {
  requests: number;
  seconds: number;
  /** Latencies in ms of every request, sorted. */
  latencies: number[];
  /** Count of each unexpected status (0 = network error), and the first such answer. */
  errors: Map<number, number>;
  firstError?: string;
  bytesSent: number;
  /** Time the client spent building requests (PDF copy, Base64, JSON, HMAC), ms. */
  buildMs: number;
}

export async function runLoad(opts: LoadOptions): Promise<LoadResult> {
  const url = new URL(opts.baseUrl);
  const agent = new Agent({ keepAlive: true, maxSockets: opts.concurrency });
  const latencies: number[] = [];
  const errors = new Map<number, number>();
  let firstError: string | undefined;
  let issued = 0;
  let bytesSent = 0;
  let buildMs = 0;
  const start = performance.now();
  const deadline = opts.durationMs === undefined ? Infinity : start + opts.durationMs;
  const max = opts.maxRequests ?? Infinity;

  const worker = async () => {
    while (issued < max && performance.now() < deadline) {
      const b0 = performance.now();
      const req = opts.build(issued++);
      buildMs += performance.now() - b0;
      const t0 = performance.now();
      const { status, text } = await send(agent, url, req);
      latencies.push(performance.now() - t0);
      bytesSent += req.body?.length ?? 0;
      if (status !== (opts.expectStatus ?? 200)) {
        errors.set(status, (errors.get(status) ?? 0) + 1);
        firstError ??= `${status} ${req.method} ${req.path}: ${text.slice(0, 300)}`;
      }
    }
  };
  await Promise.all(Array.from({ length: opts.concurrency }, worker));
  const seconds = (performance.now() - start) / 1000;
  agent.destroy();
  latencies.sort((a, b) => a - b);
  return { requests: latencies.length, seconds, latencies, errors, firstError, bytesSent, buildMs };
}

function send(agent: Agent, url: URL, r: BenchRequest): Promise<{ status: number; text: string }> {
  return new Promise((resolve) => {
    const headers = { ...r.headers, ...(r.body ? { 'content-length': String(r.body.length) } : {}) };
    const req = request({ agent, hostname: url.hostname, port: url.port, method: r.method, path: r.path, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', (err) => resolve({ status: 0, text: String(err) }));
    });
    req.on('error', (err) => resolve({ status: 0, text: String(err) }));
    req.end(r.body);
  });
}

/** Nearest-rank percentile of sorted values. */
export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) {
    return NaN;
  }
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
}
