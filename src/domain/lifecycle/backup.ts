// What `sello backup DIR` and `sello restore DIR` do (cli/backup.ts parses them; docs/operations.md "Backups"). A backup holds the
// database (every table read with COPY in one snapshot: store/backup-database.ts says why), the
// blobs that snapshot names (their bytes, or for a store that keeps its own copies only their
// list: store/backup-blobs.ts), and a note on the PKI; never the master key (store/backup-manifest.ts).
// Restore refuses to run without the key the backup was taken with, and only into an empty
// database: it recreates the schema with the backup's migrations, loads the rows, writes the blobs,
// applies this version's newer migrations and checks that every blob a row names is in the store.
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import pg from 'pg';
import type { Config } from '../../config.js';
import { openDatabase } from '../../database.js';
import { type BlobMode, backupBlobs, damagedCopies, isEmptyDir, missingFromStore, restoreBlobs } from '../../store/backup-blobs.js';
import { openBlobStore } from '../../store/blob-store.js';
import type { BlobStore } from '../../store/blobs.js';
import {
  dumpDatabase,
  holdBlobDeletions,
  isEmptyDatabase,
  loadDatabase,
  namedBlobKeys,
  releaseBlobDeletions,
  workerSchemaVersion,
} from '../../store/backup-database.js';
import { BACKUP_FORMAT, masterKeyCheck, readManifest, writeManifest } from '../../store/backup-manifest.js';
import { existingMasterKey } from '../../store/master-key.js';
import { migrate, migrationNames } from '../../store/migrate.js';

/**
 * A backup or restore refused for a reason the message states in full: exit 2 for what the
 * operator must set or choose differently (the key, the directory, the database), 1 otherwise.
 */
export class BackupRefusal extends Error {
  constructor(
    message: string,
    readonly exitCode: 1 | 2 = 1,
  ) {
    super(message);
  }
}

/** The exit code of a refusal (its message printed); any other error is thrown on. */
export function refused(err: unknown): number {
  if (err instanceof BackupRefusal) {
    console.error(err.message);
    return err.exitCode;
  }
  throw err;
}

export interface BackupCommand {
  dir: string;
  blobs: BlobMode;
  json: boolean;
}

export interface RestoreCommand {
  dir: string;
  json: boolean;
}

const KEY_KEPT = 'SELLO_MASTER_KEY, or master.key in SELLO_DATA_DIR';

/** `blobs`: the store to read; the one the configuration names by default. */
export async function runBackup(config: Config, cmd: BackupCommand, blobs?: BlobStore): Promise<number> {
  return withBlobs(config, blobs, (store) => takeBackup(config, cmd, store));
}

/** `blobs`: the store to write to; the one the configuration names by default. */
export async function runRestore(config: Config, cmd: RestoreCommand, blobs?: BlobStore): Promise<number> {
  return withBlobs(config, blobs, (store) => restoreBackup(config, cmd, store));
}

async function withBlobs(config: Config, given: BlobStore | undefined, run: (b: BlobStore) => Promise<number>): Promise<number> {
  if (given) {
    return run(given);
  }
  const opened = await openBlobStore(config);
  try {
    return await run(opened.blobs);
  } finally {
    opened.close();
  }
}

async function takeBackup(config: Config, cmd: BackupCommand, blobs: BlobStore): Promise<number> {
  const key = await existingMasterKey(config.masterKey, config.dataDir);
  if (!key) {
    throw new BackupRefusal(
      `no master key (${KEY_KEPT}): a backup records which key opens it, so it is taken where the service's key is`,
      2,
    );
  }
  if (!(await isEmptyDir(cmd.dir))) {
    throw new BackupRefusal(`${cmd.dir}: not empty; a backup is written into a new or empty directory`, 2);
  }
  await mkdir(join(cmd.dir, 'db'), { recursive: true, mode: 0o700 });
  const database = await openDatabase(config);
  const client = new pg.Client({ connectionString: database.connectionString });
  try {
    await client.connect();
    // No blob is deleted (orphan sweep, purge) from before the snapshot until the blobs it names
    // are copied: deletions under way finish first, later ones wait (store/blob-fence.ts).
    await holdBlobDeletions(client);
    const dump = await dumpDatabase(client, cmd.dir);
    let part = await backupBlobs(blobs, dump.blobKeys, cmd.dir, cmd.blobs);
    if (part.missing.length > 0) {
      // A creation stores its file again right after its row commits if a sweep removed it just
      // before (blob-fence.ts): a key missing once is looked for once more.
      const again = await backupBlobs(blobs, part.missing, cmd.dir, cmd.blobs);
      part = { ...part, keys: [...part.keys, ...again.keys], bytes: part.bytes + again.bytes, missing: again.missing };
    }
    await releaseBlobDeletions(client);
    if (part.missing.length > 0) {
      throw new BackupRefusal(
        `${part.missing.length} blobs named by rows are not in the store (${part.missing.slice(0, 5).join(', ')}…): no backup written`,
      );
    }
    const pkiFiles = [
      ...(config.pki.pem
        ? [
            { setting: 'SELLO_PKI_ROOT_CERT', path: config.pki.pem.rootCertPath },
            { setting: 'SELLO_PKI_ISSUING_CERT', path: config.pki.pem.issuingCertPath },
            { setting: 'SELLO_PKI_ISSUING_KEY', path: config.pki.pem.issuingKeyPath },
          ]
        : []),
      ...(config.pki.pkcs12 ? [{ setting: 'SELLO_PKI_PKCS12', path: config.pki.pkcs12.path }] : []),
    ];
    const { missing: _missing, ...blobPart } = part;
    await writeManifest(cmd.dir, {
      format: BACKUP_FORMAT,
      takenAt: new Date().toISOString(),
      database: {
        serverVersion: dump.serverVersion,
        migrations: dump.migrations,
        workerSchema: dump.workerSchema,
        tables: dump.tables,
        sequences: dump.sequences,
      },
      blobs: blobPart,
      masterKey: { check: masterKeyCheck(key), kept: `not in this backup: keep it apart (${KEY_KEPT})` },
      pki: {
        note:
          'The PKI generated by the service is in the database (pki_material), its keys sealed under the master key. ' +
          'Keys kept outside the database (the files below, or keys in a PKCS#11 token) are not in this backup: keep them with their own backups.',
        files: pkiFiles,
      },
    });
    const rows = dump.tables.reduce((n, t) => n + t.rows, 0);
    const summary = {
      dir: cmd.dir,
      tables: dump.tables.length,
      rows,
      blobs: part.keys.length,
      blob_bytes: part.bytes,
      blob_mode: cmd.blobs,
    };
    console.log(
      cmd.json
        ? JSON.stringify(summary)
        : `backup written to ${cmd.dir}: ${dump.tables.length} tables (${rows} rows), ${part.keys.length} blobs (${part.bytes} bytes, ${cmd.blobs === 'copy' ? 'copied' : 'listed'}); the master key is not in it`,
    );
    return 0;
  } finally {
    await client.end().catch(() => {});
    await database.close();
  }
}

async function restoreBackup(config: Config, cmd: RestoreCommand, blobs: BlobStore): Promise<number> {
  const m = await readManifest(cmd.dir).catch((err: Error) => {
    throw new BackupRefusal(err.message);
  });
  const key = await existingMasterKey(config.masterKey, config.dataDir);
  if (!key) {
    throw new BackupRefusal(
      `restore needs the master key this backup was taken with, which is not in the backup: set SELLO_MASTER_KEY or put master.key in ${config.dataDir}`,
      2,
    );
  }
  if (masterKeyCheck(key) !== m.masterKey.check) {
    throw new BackupRefusal(
      'the master key given is not the one this backup was taken with: everything sealed in it would be unreadable',
      2,
    );
  }
  const known = await migrationNames();
  if (m.database.migrations.some((name, i) => known[i] !== name)) {
    throw new BackupRefusal('this backup was taken by a newer or different version of the service: restore it with that version', 2);
  }
  const damaged = await damagedCopies(cmd.dir, m.blobs);
  if (damaged.length > 0) {
    throw new BackupRefusal(
      `${damaged.length} blob copies in the backup are damaged or missing (${damaged.slice(0, 5).join(', ')}…): nothing restored`,
    );
  }
  const absent = m.blobs.mode === 'manifest' ? await missingFromStore(blobs, m.blobs) : [];
  if (absent.length > 0) {
    throw new BackupRefusal(
      `${absent.length} blobs the backup lists are not in the store (${absent.slice(0, 5).join(', ')}…): bring them back (bucket versions, replica), then restore; nothing restored`,
    );
  }
  const database = await openDatabase(config);
  const client = new pg.Client({ connectionString: database.connectionString });
  try {
    await client.connect();
    if (!(await isEmptyDatabase(client))) {
      throw new BackupRefusal(
        'the database is not empty: restore only into a new database (an empty SELLO_DATA_DIR, or an empty DATABASE_URL)',
        2,
      );
    }
    const last = m.database.migrations.at(-1);
    await migrate(database.connectionString, { through: last ? Number(last.slice(0, 4)) : 0 });
    const worker = await workerSchemaVersion(client);
    if (worker !== m.database.workerSchema) {
      throw new BackupRefusal(
        `the job queue's schema is version ${worker} here and ${m.database.workerSchema} in the backup: restore with the version that took it`,
      );
    }
    await loadDatabase(client, cmd.dir, m.database);
    const written = await restoreBlobs(blobs, cmd.dir, m.blobs);
    const applied = await migrate(database.connectionString);
    const missing = [];
    for (const k of await namedBlobKeys(client)) {
      if (!(await blobs.has(k))) {
        missing.push(k);
      }
    }
    const rows = m.database.tables.reduce((n, t) => n + t.rows, 0);
    const summary = { dir: cmd.dir, rows, blobs: written, migrations_applied: applied.applied, blobs_missing: missing.length };
    console.log(
      cmd.json
        ? JSON.stringify(summary)
        : `restored ${rows} rows and ${written} blobs from ${cmd.dir}${applied.applied.length ? `; then applied ${applied.applied.join(', ')}` : ''}` +
            (missing.length
              ? `; ${missing.length} blobs named by rows are missing from the store`
              : '; every blob a row names is in the store'),
    );
    return missing.length ? 1 : 0;
  } finally {
    await client.end().catch(() => {});
    await database.close();
  }
}
