// Where the master key comes from: SELLO_MASTER_KEY when set, else the file master.key in the data
// directory, generated on first start. Losing that file makes every stored secret unreadable, so
// docs/operations.md tells operators to back it up apart from the database.
import { randomBytes } from 'node:crypto';
import { readFile, writeFile, mkdir } from 'node:fs/promises';
import { join } from 'node:path';

export async function resolveMasterKey(configured: Buffer | undefined, dataDir: string): Promise<Buffer> {
  if (configured) {
    return configured;
  }
  const file = join(dataDir, 'master.key');
  await mkdir(dataDir, { recursive: true, mode: 0o700 });
  try {
    await writeFile(file, `${randomBytes(32).toString('base64')}\n`, { mode: 0o600, flag: 'wx' });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') {
      throw err;
    }
  }
  const key = Buffer.from((await readFile(file, 'utf8')).trim(), 'base64');
  if (key.length !== 32) {
    throw new Error(`${file} does not hold 32 bytes in Base64`);
  }
  return key;
}

/** The master key if there is one (SELLO_MASTER_KEY or master.key), never a new one: for backup and restore. */
export async function existingMasterKey(configured: Buffer | undefined, dataDir: string): Promise<Buffer | undefined> {
  if (configured) {
    return configured;
  }
  try {
    await readFile(join(dataDir, 'master.key'));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') {
      return undefined;
    }
    throw err;
  }
  return resolveMasterKey(undefined, dataDir);
}
