// `sello account package add | list | end`: the operator's hand on an account's contracted packages
// (decisions.md "Accounts and packages"), on the database, whether or not the service runs.
import type { Deps } from '../domain/deps.js';
import { addPackage, endAccountPackage, listAccountPackages, type PackageView } from '../domain/packages/manage-packages.js';
import { UsageError, flags, required } from './args.js';

export const PACKAGE_USAGE =
  'usage: sello account package add --web-id ID --kind documents|verifications|messages|stamps --pieces N (--days N | --to DATE) [--from DATE]\n' +
  '       sello account package list --web-id ID\n' +
  '       sello account package end --web-id ID --id PACKAGE_ID\n' +
  '  (each with --json for one JSON line; DATE is ISO 8601, e.g. 2027-01-31 or 2027-01-31T18:00:00Z)';

export type PackageCommand =
  | { kind: 'add'; webId: string; pieceKind: string; pieces: number; from?: Date; to?: Date; days?: number; json: boolean }
  | { kind: 'list'; webId: string; json: boolean }
  | { kind: 'end'; webId: string; id: string; json: boolean };

function date(name: string, v: string | boolean | undefined): Date | undefined {
  if (typeof v !== 'string') {
    return undefined;
  }
  const d = new Date(v);
  if (!/^\d{4}-\d{2}-\d{2}/.test(v) || Number.isNaN(d.getTime())) {
    throw new UsageError(`--${name}: expected an ISO 8601 date such as 2027-01-31 or 2027-01-31T18:00:00Z, got ${JSON.stringify(v)}`);
  }
  return d;
}

function wholeNumber(name: string, v: string): number {
  if (!/^\d{1,9}$/.test(v)) {
    throw new UsageError(`--${name}: expected a whole number, got ${JSON.stringify(v)}`);
  }
  return Number(v);
}

export function parsePackageCommand(argv: string[]): PackageCommand {
  const [sub, ...rest] = argv;
  switch (sub) {
    case 'add': {
      const { values } = flags(rest, {
        'web-id': 'string',
        kind: 'string',
        pieces: 'string',
        days: 'string',
        from: 'string',
        to: 'string',
        json: 'boolean',
      });
      const days = typeof values.days === 'string' ? wholeNumber('days', values.days) : undefined;
      const to = date('to', values.to);
      if ((days === undefined) === (to === undefined)) {
        throw new UsageError('sello account package add: give the end of the validity, --days N or --to DATE (one of them)');
      }
      return {
        kind: 'add',
        webId: required(values, 'web-id'),
        pieceKind: required(values, 'kind'),
        pieces: wholeNumber('pieces', required(values, 'pieces')),
        from: date('from', values.from),
        to,
        days,
        json: values.json === true,
      };
    }
    case 'list': {
      const { values } = flags(rest, { 'web-id': 'string', json: 'boolean' });
      return { kind: 'list', webId: required(values, 'web-id'), json: values.json === true };
    }
    case 'end': {
      const { values } = flags(rest, { 'web-id': 'string', id: 'string', json: 'boolean' });
      return { kind: 'end', webId: required(values, 'web-id'), id: required(values, 'id'), json: values.json === true };
    }
    default:
      // An option where the subcommand belongs (`sello account package --x`) is an unknown option,
      // as everywhere else, not a missing subcommand.
      if (sub?.startsWith('-')) {
        throw new UsageError(`unknown option ${sub.split('=')[0]}`, true);
      }
      throw new UsageError(PACKAGE_USAGE);
  }
}

function line(p: PackageView): string {
  const state = p.ended_at ? `ended ${p.ended_at}` : `${p.valid_from} .. ${p.valid_to}`;
  return `${p.id}\t${p.kind}\t${p.used}/${p.pieces} used\t${state}`;
}

export async function runPackageCommand(deps: Pick<Deps, 'db' | 'clock'>, cmd: PackageCommand): Promise<void> {
  switch (cmd.kind) {
    case 'add': {
      const p = await addPackage(deps, {
        webId: cmd.webId,
        kind: cmd.pieceKind,
        pieces: cmd.pieces,
        validFrom: cmd.from,
        validTo: cmd.to,
        days: cmd.days,
      });
      console.log(cmd.json ? JSON.stringify(p) : `added ${line(p)}`);
      return;
    }
    case 'list': {
      const list = await listAccountPackages(deps, { webId: cmd.webId });
      if (cmd.json) {
        console.log(JSON.stringify(list));
      } else {
        console.log(list.length ? list.map(line).join('\n') : 'no packages: every kind is unlimited for this account');
      }
      return;
    }
    case 'end': {
      const p = await endAccountPackage(deps, { webId: cmd.webId, id: cmd.id });
      console.log(cmd.json ? JSON.stringify(p) : `ended ${line(p)}`);
      return;
    }
  }
}
