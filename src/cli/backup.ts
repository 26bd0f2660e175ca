// `sello backup DIR [--blobs copy|manifest] [--json]` and `sello restore DIR [--json]`: their
// arguments; what they do is domain/lifecycle/backup.ts.
import type { BackupCommand, RestoreCommand } from '../domain/lifecycle/backup.js';
import { UsageError, flags } from './args.js';

export { refused, runBackup, runRestore } from '../domain/lifecycle/backup.js';

export function parseBackupCommand(argv: string[]): BackupCommand {
  const { values, positionals } = flags(argv, { blobs: 'string', json: 'boolean' });
  if (positionals.length !== 1 || positionals[0] === '') {
    throw new UsageError('usage: sello backup DIR [--blobs copy|manifest] [--json]');
  }
  const blobs = (values.blobs ?? 'copy') as string;
  if (blobs !== 'copy' && blobs !== 'manifest') {
    throw new UsageError(`--blobs ${JSON.stringify(blobs)}: expected copy or manifest`);
  }
  return { dir: positionals[0], blobs, json: values.json === true };
}

export function parseRestoreCommand(argv: string[]): RestoreCommand {
  const { values, positionals } = flags(argv, { json: 'boolean' });
  if (positionals.length !== 1 || positionals[0] === '') {
    throw new UsageError('usage: sello restore DIR [--json]');
  }
  return { dir: positionals[0], json: values.json === true };
}
