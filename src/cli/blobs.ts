// `sello blobs migrate` and `sello blobs check`: the operator's commands on stored blobs. migrate
// copies the data directory's blobs to the bucket and reads each copy back (exit 0: all there
// intact; 1: some blob corrupt in the directory or not copied). check reads every blob a row names
// from the store the service uses (exit 0: all intact; 1: some missing or corrupt).
import type { BlobCheck } from '../domain/blobs/check-blobs.js';
import type { BlobMigration } from '../domain/blobs/migrate-blobs.js';
import { UsageError, flags } from './args.js';

const USAGE = 'usage: sello blobs migrate [--json] | sello blobs check [--json]';

export interface BlobsCommand {
  sub: 'migrate' | 'check';
  json: boolean;
}

export function parseBlobsCommand(argv: string[]): BlobsCommand {
  const [sub, ...rest] = argv;
  if (sub !== 'migrate' && sub !== 'check') {
    throw new UsageError(USAGE);
  }
  const { values, positionals } = flags(rest, { json: 'boolean' });
  if (positionals.length > 0) {
    throw new UsageError(USAGE);
  }
  return { sub, json: values.json === true };
}

const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;

/** Prints what was copied and what was not; returns the exit code. */
export function reportMigration(r: BlobMigration, where: { from: string; to: string }, json: boolean): number {
  const ok = r.corrupt.length === 0 && r.failed.length === 0;
  if (json) {
    console.log(JSON.stringify({ from: where.from, to: where.to, ...r }));
    return ok ? 0 : 1;
  }
  for (const c of r.corrupt) {
    console.log(`corrupt in the source, not copied: ${c.key} (its bytes hash to ${c.actual})`);
  }
  for (const f of r.failed) {
    console.log(`not copied: ${f.key}: ${f.reason}`);
  }
  console.log(
    `${where.from} → ${where.to}: ${r.copied} copied (${mb(r.bytes)}), ${r.present} already there, ` +
      `${r.corrupt.length} corrupt in the source, ${r.failed.length} failed; every blob in the bucket read back and its SHA-256 checked`,
  );
  return ok ? 0 : 1;
}

/** Prints each missing or corrupt blob with the rows that name it; returns the exit code. */
export function reportCheck(r: BlobCheck, location: string, json: boolean): number {
  if (json) {
    console.log(JSON.stringify({ store: location, ...r }));
    return r.problems.length === 0 ? 0 : 1;
  }
  for (const p of r.problems) {
    const what = p.problem === 'corrupt' ? `corrupt (its bytes hash to ${p.actual})` : p.problem;
    for (const row of p.rows) {
      console.log(`${what}: ${p.key}, named by ${row.table}.${row.column} of ${row.row}`);
    }
  }
  const rows = r.problems.reduce((n, p) => n + p.rows.length, 0);
  console.log(
    r.problems.length === 0
      ? `${location}: ${r.blobs} blobs named by ${r.references} rows, all intact`
      : `${location}: ${r.blobs} blobs named by ${r.references} rows; ${r.problems.length} missing or corrupt, named by ${rows} rows`,
  );
  return r.problems.length === 0 ? 0 : 1;
}
