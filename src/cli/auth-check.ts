// `sello auth check --web-id ID METHOD PATH [--body FILE | --file FILE] [--signature SIG]`: what an
// integrator must sign for a request and whether their signature is it. Operators run it on the
// service's database (the keys are sealed there), whether or not the service runs; it prints the
// strings the server compares signatures with (decisions.md "Authentication") and the signature each
// active key gives, and says which one the given signature matches.
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import type { Deps } from '../domain/deps.js';
import { hmac } from '../http/auth.js';
import { activeApiKeys } from '../domain/accounts/active-api-keys.js';
import { UsageError, flags, required } from './args.js';
import { runningServerPublicUrl } from './server-address.js';

const USAGE =
  'usage: sello auth check --web-id ID METHOD PATH [--body FILE | --file FILE] [--signature SIG]\n' +
  '  PATH is the request target as sent (path and query); --body is the JSON body of a POST exactly as sent;\n' +
  '  --file is the uploaded file of a multipart POST. Exit 0 when the signature matches, 1 when not, 2 on a usage error.';

export interface AuthCheckCommand {
  webId: string;
  method: string;
  target: string;
  bodyFile?: string;
  uploadFile?: string;
  signature?: string;
}

export function parseAuthCheckCommand(argv: string[]): AuthCheckCommand {
  const [sub, ...rest] = argv;
  if (sub !== 'check') {
    throw new UsageError(USAGE);
  }
  const { values, positionals } = flags(rest, { 'web-id': 'string', body: 'string', file: 'string', signature: 'string' });
  const [method, target] = positionals;
  if (!method || !target || positionals.length > 2) {
    throw new UsageError(USAGE);
  }
  if (!target.startsWith('/')) {
    throw new UsageError(`PATH must start with /: ${target}`);
  }
  if (values.body !== undefined && values.file !== undefined) {
    throw new UsageError('give --body (a JSON POST) or --file (a multipart upload), not both');
  }
  return {
    webId: required(values, 'web-id'),
    method: method.toUpperCase(),
    target,
    bodyFile: values.body as string | undefined,
    uploadFile: values.file as string | undefined,
    signature: values.signature as string | undefined,
  };
}

async function readArgumentFile(path: string, what: string): Promise<Buffer> {
  try {
    return await readFile(path);
  } catch (err) {
    throw new UsageError(`cannot read ${what} ${path}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
}

/** The public URL signatures of absolute URLs are checked against, and where it comes from. */
interface PublicUrl {
  url: string;
  /** The server running on this data directory recorded it (else this shell's settings gave it). */
  fromRunningServer: boolean;
}

/**
 * The server running on this data directory checks absolute URLs against its own public URL,
 * whatever PORT or SELLO_PUBLIC_URL say in the shell the command runs in; with none running, the
 * settings of this shell (the service started with them would use the same).
 */
async function publicUrlOf(config: Pick<Deps['config'], 'dataDir' | 'publicUrl'>): Promise<PublicUrl> {
  const running = await runningServerPublicUrl(config.dataDir);
  return running ? { url: running, fromRunningServer: true } : { url: config.publicUrl, fromRunningServer: false };
}

/** The strings the server accepts a signature over, with how to name each. */
async function stringsToSign(cmd: AuthCheckCommand, publicUrl: PublicUrl): Promise<{ label: string; value: Buffer }[]> {
  if (cmd.uploadFile !== undefined) {
    const file = await readArgumentFile(cmd.uploadFile, 'the file');
    const sha = createHash('sha256').update(file).digest('base64');
    return [{ label: `Base64(SHA-256(file)), also sent as the Content-SHA256 header: ${sha}`, value: Buffer.from(sha) }];
  }
  if (cmd.bodyFile !== undefined) {
    const raw = await readArgumentFile(cmd.bodyFile, 'the body');
    const out = [{ label: `the body exactly as in ${cmd.bodyFile} (${raw.length} bytes)`, value: raw }];
    try {
      const compact = JSON.stringify(JSON.parse(raw.toString('utf8')));
      if (!Buffer.from(compact).equals(raw)) {
        out.push({
          label: `or the body re-serialized compactly (${Buffer.byteLength(compact)} bytes): ${compact}`,
          value: Buffer.from(compact),
        });
      }
    } catch {
      out[0].label += ' (not valid JSON: the server will answer 400 once authenticated)';
    }
    return out;
  }
  if (cmd.method === 'POST') {
    throw new UsageError('a POST needs --body FILE (JSON) or --file FILE (multipart upload)');
  }
  return [
    { label: `the request target as sent: ${cmd.target}`, value: Buffer.from(cmd.target) },
    {
      label: `or the absolute URL: ${publicUrl.url}${cmd.target} (${
        publicUrl.fromRunningServer
          ? 'the public URL of the service running on this data directory'
          : 'no service runs on this data directory: SELLO_PUBLIC_URL, else http://localhost:PORT'
      })`,
      value: Buffer.from(publicUrl.url + cmd.target),
    },
  ];
}

/** Prints what to sign and the verdict; returns the exit code. */
export async function runAuthCheck(deps: Pick<Deps, 'db' | 'secrets' | 'config'>, cmd: AuthCheckCommand): Promise<number> {
  const keys = await activeApiKeys(deps, { webId: cmd.webId });
  if (!keys) {
    console.log(`no account has the web id ${cmd.webId}: every request with it is 401`);
    return 1;
  }
  if (keys.length === 0) {
    console.log(`the account ${cmd.webId} has no active API key: every request is 401 (sello account rotate-key issues one)`);
    return 1;
  }
  const strings = await stringsToSign(cmd, await publicUrlOf(deps.config));
  console.log(`${cmd.method} ${cmd.target}: sign one of`);
  strings.forEach((s, i) => {
    console.log(`  ${i + 1}. ${s.label}`);
    keys.forEach((key, k) => {
      console.log(`     with ${k === 0 ? 'the newest key' : 'the previous key'}: ${hmac(key, s.value).toString('base64')}`);
    });
  });
  console.log(`Authorization: ${deps.config.authSchemes[0]} ${cmd.webId}:<one of the signatures above>`);
  if (cmd.signature === undefined) {
    return 0;
  }
  const given = Buffer.from(cmd.signature, 'base64');
  for (const [i, s] of strings.entries()) {
    for (const [k, key] of keys.entries()) {
      if (hmac(key, s.value).equals(given)) {
        console.log(`the signature given matches string ${i + 1} with ${k === 0 ? 'the newest key' : 'the previous key'}`);
        return 0;
      }
    }
  }
  console.log('the signature given matches none of them: check the key, and that the string signed is byte for byte the one above');
  return 1;
}
