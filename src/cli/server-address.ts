// Where the running HTTP server of a data directory listens, written by `sello serve` once it
// listens and removed when it stops, so `sello api` on the same data directory calls it whatever
// its port, without SELLO_PUBLIC_URL or --url.
import { readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

const FILE = 'server.json';

interface ServerAddress {
  url: string;
  pid: number;
}

export async function recordServerAddress(dataDir: string, url: string): Promise<() => Promise<void>> {
  const path = join(dataDir, FILE);
  await writeFile(path, `${JSON.stringify({ url, pid: process.pid } satisfies ServerAddress)}\n`, { mode: 0o600 });
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

/** The URL of the server running on this data directory, if one is (its process still exists). */
export async function runningServerUrl(dataDir: string): Promise<string | undefined> {
  try {
    const recorded = JSON.parse(await readFile(join(dataDir, FILE), 'utf8')) as ServerAddress;
    return typeof recorded.url === 'string' && Number.isInteger(recorded.pid) && alive(recorded.pid) ? recorded.url : undefined;
  } catch {
    return undefined;
  }
}
