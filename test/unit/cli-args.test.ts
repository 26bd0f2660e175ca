// Flags of the sello command: a value may start with a dash (web ids and keys are base64url).
import { describe, expect, it } from 'vitest';
import { parsePackageCommand } from '../../src/cli/account-package.js';
import { UsageError, flags } from '../../src/cli/args.js';

describe('flags', () => {
  it('takes a value that starts with a dash as the value of a string option', () => {
    const { values, positionals } = flags(['--web-id', '-Xa3_9', 'GET', '/api/document', '--json'], {
      'web-id': 'string',
      json: 'boolean',
    });
    expect(values).toEqual({ 'web-id': '-Xa3_9', json: true });
    expect(positionals).toEqual(['GET', '/api/document']);
  });

  it("still refuses an unknown option, in the command's words, asking for the usage", () => {
    const err = (() => {
      try {
        flags(['--nope'], { json: 'boolean' });
      } catch (e) {
        return e;
      }
    })();
    expect(err).toBeInstanceOf(UsageError);
    expect(err).toMatchObject({ message: 'unknown option --nope', withUsage: true });
  });

  it('names an option given without its value, or a value it does not take', () => {
    expect(() => flags(['--web-id'], { 'web-id': 'string' })).toThrow(/^--web-id needs a value$/);
    expect(() => flags(['--json=1'], { json: 'boolean' })).toThrow(/^--json takes no value$/);
  });

  it('an option where a subcommand of account package belongs is an unknown option, with the usage', () => {
    expect(() => parsePackageCommand(['--bogus=1'])).toThrow(
      expect.objectContaining({ message: 'unknown option --bogus', withUsage: true }),
    );
    // No subcommand at all: the usage alone.
    expect(() => parsePackageCommand([])).toThrow(/^usage: sello account package add/);
  });
});
