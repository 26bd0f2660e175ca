// Small helpers for the command line: flags, JSON output, errors a person can act on.
import { parseArgs } from 'node:util';

export type Flags = Record<string, string | boolean | undefined>;

export function flags(argv: string[], spec: Record<string, 'string' | 'boolean'>): { values: Flags; positionals: string[] } {
  const options = Object.fromEntries(Object.entries(spec).map(([k, type]) => [k, { type }])) as NonNullable<
    NonNullable<Parameters<typeof parseArgs>[0]>['options']
  >;
  try {
    const { values, positionals } = parseArgs({ args: withValues(argv, spec), options, allowPositionals: true, strict: true });
    return { values: values as Flags, positionals };
  } catch (err) {
    throw optionError(err);
  }
}

/**
 * A usage error: printed as is, exit 2. `withUsage` when the command's usage should follow (an
 * option it does not have, a method it does not send), so the person sees what it does take.
 */
export class UsageError extends Error {
  constructor(
    message: string,
    readonly withUsage = false,
  ) {
    super(message);
  }
}

/** parseArgs' errors in the command's words ("unknown option --x"), not Node's advice on `--`. */
function optionError(err: unknown): unknown {
  const code = (err as { code?: string }).code;
  const message = (err as Error).message ?? '';
  const option = /'(-[^' ]+)/.exec(message)?.[1];
  if (code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') {
    return new UsageError(`unknown option ${option ?? message}`, true);
  }
  if (code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE') {
    return new UsageError(
      option && /argument missing/.test(message) ? `${option} needs a value` : `${option ?? message} takes no value`,
      true,
    );
  }
  if (typeof code === 'string' && code.startsWith('ERR_PARSE_ARGS_')) {
    return new UsageError(message, true);
  }
  return err;
}

export function required(values: Flags, name: string): string {
  const v = values[name];
  if (typeof v !== 'string' || v === '') {
    throw new UsageError(`--${name} is required`);
  }
  return v;
}

/**
 * `--web-id -Xa3…` as `--web-id=-Xa3…`: parseArgs refuses a value that starts with a dash as
 * ambiguous, and web ids and API keys are base64url, which may start with one.
 */
function withValues(argv: string[], spec: Record<string, 'string' | 'boolean'>): string[] {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    const name = arg.startsWith('--') && !arg.includes('=') ? arg.slice(2) : undefined;
    if (name !== undefined && spec[name] === 'string' && i + 1 < argv.length) {
      out.push(`--${name}=${argv[i + 1]}`);
      i++;
    } else {
      out.push(arg);
    }
  }
  return out;
}

/** `<command> list [--json] [--limit N]`, as the outbox commands (mail, messages) take it. */
export function parseListCommand(argv: string[], usage: string): { json: boolean; limit: number } {
  const [sub, ...rest] = argv;
  if (sub !== 'list') {
    throw new UsageError(usage);
  }
  const { values } = flags(rest, { json: 'boolean', limit: 'string' });
  const limit = values.limit === undefined ? 20 : Number(values.limit);
  if (!Number.isInteger(limit) || limit < 1 || limit > 1000) {
    throw new UsageError('--limit: a whole number from 1 to 1000');
  }
  return { json: values.json === true, limit };
}
