// Where the running HTTP server of a data directory listens, and its public URL, written by `sello
// serve` once it listens and removed when it stops: `sello api` on the same data directory calls it
// whatever its port, without SELLO_PUBLIC_URL or --url, and `sello auth check` offers the absolute
// URL that server accepts signatures over (its public URL, not the one this shell's PORT implies).
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

const FILE = 'server.json';

interface ServerAddress {
  url: string;
  pid: number;
  /** SELLO_PUBLIC_URL of that server (absent in files written before it was recorded). */
  publicUrl?: string;
}

export async function recordServerAddress(dataDir: string, url: string, publicUrl: string): Promise<() => Promise<void>> {
  const path = join(dataDir, FILE);
  // With DATABASE_URL, a master key given as a setting and blobs in a bucket, nothing else makes the
  // data directory: a fresh `sello api` node (a new pod, a new machine) starts with none.
  await mkdir(dataDir, { recursive: true, mode: 0o700 });
  await writeFile(path, `${JSON.stringify({ url, pid: process.pid, publicUrl } satisfies ServerAddress)}\n`, { mode: 0o600 });
  return () => rm(path, { force: true });
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

async function runningServer(dataDir: string): Promise<ServerAddress | undefined> {
  try {
    const recorded = JSON.parse(await readFile(join(dataDir, FILE), 'utf8')) as ServerAddress;
    return typeof recorded.url === 'string' && Number.isInteger(recorded.pid) && alive(recorded.pid) ? recorded : undefined;
  } catch {
    return undefined;
  }
}

/** The URL of the server running on this data directory, if one is (its process still exists). */
export async function runningServerUrl(dataDir: string): Promise<string | undefined> {
  return (await runningServer(dataDir))?.url;
}

/** The public URL of the server running on this data directory, if one is and recorded it. */
export async function runningServerPublicUrl(dataDir: string): Promise<string | undefined> {
  const publicUrl = (await runningServer(dataDir))?.publicUrl;
  return typeof publicUrl === 'string' ? publicUrl : undefined;
}
