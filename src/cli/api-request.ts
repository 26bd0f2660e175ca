// `sello api METHOD PATH [--body FILE]`: sends a signed request as an account and prints the
// answer. Credentials: --web-id and --api-key; with --web-id alone the key is read from the
// database (operators on the server); with neither, the only account, or the first one.
import { readFile } from 'node:fs/promises';
import type { Config } from '../config.js';
import { SelloClient } from '../client/index.js';
import { openStore } from '../database.js';
import { activeApiKeys } from '../domain/accounts/active-api-keys.js';
import { listAccounts } from '../domain/accounts/list-accounts.js';
import { UsageError, flags } from './args.js';
import { runningServerUrl } from './server-address.js';

const USAGE = 'usage: sello api METHOD /path?query [--body FILE|-] [--web-id ID [--api-key KEY]] [--url BASE]';

/**
 * The methods of a JSON API's requests (the command prints the answer's body: HEAD and OPTIONS have
 * none worth printing); another word (a typo, FETCH) would otherwise reach the server as a method.
 */
const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];

export async function apiRequest(config: Config, argv: string[]): Promise<number> {
  const { values, positionals } = flags(argv, { body: 'string', 'web-id': 'string', 'api-key': 'string', url: 'string' });
  const [given, path] = positionals;
  if (!given || !path?.startsWith('/')) {
    throw new UsageError(USAGE);
  }
  const method = given.toUpperCase();
  if (!METHODS.includes(method)) {
    throw new UsageError(`sello api: METHOD is one of ${METHODS.join(', ')}, not ${JSON.stringify(given)}\n${USAGE}`);
  }
  let webId = values['web-id'] as string | undefined;
  let apiKey = values['api-key'] as string | undefined;
  if (!webId || !apiKey) {
    const runtime = await openStore(config);
    try {
      if (!webId) {
        // The only account, else the first one (the account the first start created).
        const all = await listAccounts(runtime.deps);
        if (all.length === 0) {
          throw new UsageError('there is no account yet: start the service once, or run sello account create --name NAME');
        }
        const first = all.reduce((a, b) => (a.createdAt <= b.createdAt ? a : b));
        webId = first.webId;
        if (all.length > 1) {
          console.error(`as ${first.name} (${webId}), the first account; --web-id ID picks another (sello account list)`);
        }
      }
      const keys = await activeApiKeys(runtime.deps, { webId });
      if (!keys || keys.length === 0) {
        throw new UsageError(`no account with an active key for web id ${webId}`);
      }
      apiKey = keys[0];
    } finally {
      await runtime.close();
    }
  }
  let body: string | undefined;
  if (typeof values.body === 'string') {
    try {
      body = values.body === '-' ? await readStdin() : await readFile(values.body, 'utf8');
    } catch (err) {
      throw new UsageError(`cannot read --body ${values.body}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
    }
  }
  // The server running on this data directory, whatever its port; else the public URL.
  const baseUrl = (values.url as string | undefined) ?? (await runningServerUrl(config.dataDir)) ?? config.publicUrl;
  const client = new SelloClient({ baseUrl, webId, apiKey, scheme: config.authSchemes[0] });
  let res: Awaited<ReturnType<typeof client.raw>>;
  try {
    res = await client.raw(method, path, body);
  } catch (err) {
    const cause = (err as { cause?: { code?: string; message?: string } }).cause;
    throw new UsageError(
      `could not reach ${baseUrl} (${cause?.code ?? cause?.message ?? (err as Error).message}); is the service running there? Set SELLO_PUBLIC_URL or pass --url`,
    );
  }
  console.error(`HTTP ${res.status}`);
  if (res.text) {
    console.log(res.text);
  }
  return res.status >= 200 && res.status < 300 ? 0 : 1;
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of process.stdin) {
    chunks.push(c as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}
