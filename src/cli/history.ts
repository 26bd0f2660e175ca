// `sello history verify TICKET`: checks a document's hash-chained history (every hash, every link,
// no gap, the head the document records). Exit 0: intact; 1: broken, naming the first broken
// entry; 2: no such document. Any account's document: this is an operator's command.
import type { Deps } from '../domain/deps.js';
import { verifyHistory } from '../domain/history/verify-history.js';
import { AppError } from '../domain/errors.js';
import { UsageError, flags } from './args.js';

const USAGE = 'usage: sello history verify TICKET [--json]';

export interface HistoryCommand {
  ticket: string;
  json: boolean;
}

export function parseHistoryCommand(argv: string[]): HistoryCommand {
  const [sub, ...rest] = argv;
  if (sub !== 'verify') {
    throw new UsageError(USAGE);
  }
  const { values, positionals } = flags(rest, { json: 'boolean' });
  if (positionals.length !== 1 || positionals[0] === '') {
    throw new UsageError(USAGE);
  }
  return { ticket: positionals[0], json: values.json === true };
}

/** Prints the verdict; returns the exit code. */
export async function runHistoryCommand(deps: Pick<Deps, 'db'>, cmd: HistoryCommand): Promise<number> {
  let r: Awaited<ReturnType<typeof verifyHistory>>;
  try {
    r = await verifyHistory(deps, { ticket: cmd.ticket });
  } catch (err) {
    if (err instanceof AppError && err.code === 'DOCUMENT_NOT_FOUND') {
      console.error(`no document with ticket ${cmd.ticket}`);
      return 2;
    }
    throw err;
  }
  if (cmd.json) {
    console.log(JSON.stringify(r));
  } else if (r.valid) {
    console.log(`history of ${r.document_ticket}: ${r.entries} entries, chain intact`);
  } else {
    console.log(`history of ${r.document_ticket}: ${r.entries} entries, chain broken at entry ${r.first_broken_seq}: ${r.problem}`);
  }
  return r.valid ? 0 : 1;
}
