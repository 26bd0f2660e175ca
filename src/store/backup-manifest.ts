// manifest.json of a backup (cli/backup.ts): what each part holds and the hashes restore checks.
// The master key is not in a backup: everything sealed (API keys, webhook secrets, the PKI's keys,
// message bodies, identity images) would travel with the key that opens it. The manifest keeps
// only a check value of the key (an HMAC under it), so restore can tell the right key from a wrong
// one without the backup revealing anything about it.
import { createHmac } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { BlobPart } from './backup-blobs.js';
import type { DumpedSequence, DumpedTable } from './backup-database.js';

export const BACKUP_FORMAT = 'sello-backup/1';

export interface BackupManifest {
  format: typeof BACKUP_FORMAT;
  takenAt: string;
  database: {
    serverVersion: string;
    migrations: string[];
    workerSchema: number;
    tables: DumpedTable[];
    sequences: DumpedSequence[];
  };
  blobs: BlobPart;
  masterKey: { check: string; kept: string };
  pki: { note: string; files: { setting: string; path: string }[] };
}

export function masterKeyCheck(key: Buffer): string {
  return createHmac('sha256', key).update('sello backup: master key check').digest('hex');
}

export async function writeManifest(dir: string, m: BackupManifest): Promise<void> {
  await writeFile(join(dir, 'manifest.json'), `${JSON.stringify(m, null, 2)}\n`, { mode: 0o600 });
}

export async function readManifest(dir: string): Promise<BackupManifest> {
  let m: BackupManifest;
  try {
    m = JSON.parse(await readFile(join(dir, 'manifest.json'), 'utf8')) as BackupManifest;
  } catch (err) {
    throw new Error(`${join(dir, 'manifest.json')}: not a readable backup manifest (${(err as Error).message})`);
  }
  if (m.format !== BACKUP_FORMAT) {
    throw new Error(`${dir}: not a backup of this format (expected ${BACKUP_FORMAT}, found ${JSON.stringify(m.format)})`);
  }
  return m;
}
