// Flags of the sello command: a value may start with a dash (web ids and keys are base64url).
import { describe, expect, it } from 'vitest';
import { flags } from '../../src/cli/args.js';

describe('flags', () => {
  it('takes a value that starts with a dash as the value of a string option', () => {
    const { values, positionals } = flags(['--web-id', '-Xa3_9', 'GET', '/api/document', '--json'], {
      'web-id': 'string',
      json: 'boolean',
    });
    expect(values).toEqual({ 'web-id': '-Xa3_9', json: true });
    expect(positionals).toEqual(['GET', '/api/document']);
  });

  it('still refuses an unknown option', () => {
    expect(() => flags(['--nope'], { json: 'boolean' })).toThrow(/Unknown option/);
  });
});
