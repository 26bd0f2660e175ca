// Scenario K of `npm run bench` (not in the default set: BENCH_SCENARIOS=K): bulk send. One run of
// BENCH_K_ROWS rows (default 1,000) from a one-page pdfmake template, each row one EMAIL_LINK signer
// with a workflow (its invitation is queued in the transaction that creates its document), against
// a server with its job runner in the same process (bench/sustained-server.ts, as `sello serve`).
// Times: the POST's answer, and until the run's bulk_completed webhook arrives (every row created,
// every invitation queued). Prints figures; asserts nothing.
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server as HttpServer } from 'node:http';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { SelloClient } from '../src/client/index.js';
import { startServer, stopServer, type Server } from './server-process.js';

const ROWS = Number(process.env.BENCH_K_ROWS ?? 1000);

const TEMPLATE = {
  content: [{ text: 'Carta para {{name}}', fontSize: 18 }, { text: 'Correo: {{email}}' }],
};

export async function scenarioBulk(): Promise<void> {
  let completedAt: number | undefined;
  let completed: Record<string, unknown> | undefined;
  let arrived!: () => void;
  const done = new Promise<void>((r) => {
    arrived = r;
  });
  const receiver: HttpServer = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>;
      if (body.notification_type === 'bulk_completed') {
        completedAt ??= performance.now();
        completed = body;
        arrived();
      }
      res.writeHead(200).end('ok');
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  const receiverUrl = `http://127.0.0.1:${(receiver.address() as { port: number }).port}/hook`;
  const dataDir = await mkdtemp(join(tmpdir(), 'sello-bench-k-'));
  let server: Server | undefined;
  try {
    server = await startServer(dataDir, undefined, { script: 'bench/sustained-server.ts', args: [receiverUrl] });
    const client = new SelloClient({ baseUrl: server.baseUrl, webId: server.webId, apiKey: server.apiKey });
    await client.saveTemplate({ template_type: 'pdfmake', template_name: 'carta', template_data: TEMPLATE } as never);
    // Warm-up: one document from the template (worker threads, JIT), as a single create.
    await client.createDocument({
      template: { title: 'carta' },
      fields: [
        { id: 'name', value: 'x' },
        { id: 'email', value: 'x' },
      ],
    });
    const rows = Array.from({ length: ROWS }, (_, i) => ({
      email: `p${i}@example.com`,
      name: `Persona ${i}`,
      fields: { name: `Persona ${i}`, email: `p${i}@example.com` },
    }));
    console.log(
      `K  bulk send: ${ROWS} rows from a one-page pdfmake template, one EMAIL_LINK signer and a workflow each ` +
        `(${cpus().length} CPUs, load average before ${loadavg()
          .map((x) => x.toFixed(2))
          .join(' ')})`,
    );
    const t0 = performance.now();
    const started = await client.createBulk(
      {
        template: { title: 'carta', name: 'Carta {{row.name}}' },
        stickers: [
          { authority: 'EMAIL_LINK', data: '{{row.email}}', name: '{{row.name}}', page: 0, rect: { lx: 60, ly: 60, tx: 260, ty: 130 } },
        ],
        workflow: { ordered: false },
        rows,
      },
      `bench-${Date.now()}`,
    );
    const answered = performance.now() - t0;
    await done;
    const total = completedAt! - t0;
    const run = await client.getBulk(started.bulk_id, { limit: 1 });
    console.log(`   POST /api/bulk answered in ${answered.toFixed(0)} ms`);
    console.log(
      `   all ${run.created} created and their invitations queued (bulk_completed received) in ${(total / 1000).toFixed(1)} s: ` +
        `${((run.created / total) * 1000).toFixed(1)} documents/s; state ${String(completed?.state)}, refused ${run.refused}`,
    );
  } finally {
    if (server) {
      await stopServer(server);
    }
    receiver.close();
    await rm(dataDir, { recursive: true, force: true });
  }
}
