// Small helpers for the command line: flags, JSON output, errors a person can act on.
import { parseArgs } from 'node:util';

export type Flags = Record<string, string | boolean | undefined>;

export function flags(argv: string[], spec: Record<string, 'string' | 'boolean'>): { values: Flags; positionals: string[] } {
  const options = Object.fromEntries(Object.entries(spec).map(([k, type]) => [k, { type }])) as NonNullable<
    NonNullable<Parameters<typeof parseArgs>[0]>['options']
  >;
  const { values, positionals } = parseArgs({ args: argv, options, allowPositionals: true, strict: true });
  return { values: values as Flags, positionals };
}

export class UsageError extends Error {}

export function required(values: Flags, name: string): string {
  const v = values[name];
  if (typeof v !== 'string' || v === '') {
    throw new UsageError(`--${name} is required`);
  }
  return v;
}
