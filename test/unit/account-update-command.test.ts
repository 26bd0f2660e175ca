// `sello account update` reads its flags and runs the use case's own checks on them before the
// database is opened: a bad value answers at once, naming the flag, in the use case's words.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { UsageError } from '../../src/cli/args.js';
import { parseAccountCommand } from '../../src/cli/account.js';

const dirs: string[] = [];
afterAll(async () => {
  await Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true })));
});

const update = (...flags: string[]) => parseAccountCommand(['update', '--web-id', 'w', ...flags]);

describe('sello account update', () => {
  it('reads every flag into the update', () => {
    expect(update('--name', ' Acme ', '--no-logo', '--nom151', 'on', '--identity-retries', '3', '--identity-decision', 'manual')).toEqual({
      kind: 'update',
      webId: 'w',
      name: ' Acme ',
      logoPng: null,
      nom151Default: true,
      identityRetries: 3,
      identityDecision: 'manual',
      // No brand flag given: every brand setting left as it is.
      brand: {},
      json: false,
    });
  });

  it.each(['rsa-2048', 'ecdsa-p256', 'default'])('reads --signer-key %s', (key) => {
    expect(update('--signer-key', key)).toEqual({ kind: 'update', webId: 'w', signerKey: key, brand: {}, json: false });
  });

  it.each([
    [['--identity-retries', '6'], '--identity-retries: expected a whole number from 0 to 5'],
    [['--identity-retries', ''], '--identity-retries: expected a whole number from 0 to 5'],
    [['--identity-retries', '0x3'], '--identity-retries: expected a whole number from 0 to 5'],
    [['--identity-decision', 'always'], '--identity-decision: expected manual or automatic'],
    [['--name', '   '], '--name: expected 1 to 200 characters'],
    [[], '--name: nothing to change'],
    [['--nom151', 'yes'], '--nom151 takes on or off'],
    [['--signer-key', 'rsa-4096'], '--signer-key: expected rsa-2048, ecdsa-p256, default'],
    [['--signer-key', 'ECDSA-P256'], '--signer-key: expected rsa-2048, ecdsa-p256, default'],
  ])('%j is refused before the database is opened: %s', (flags, message) => {
    expect(() => update(...flags)).toThrow(UsageError);
    expect(() => update(...flags)).toThrow(`sello account update: ${message}`);
  });

  it('refuses a logo that is not a PNG by the use case’s check, naming --logo', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'sello-logo-'));
    dirs.push(dir);
    const file = join(dir, 'logo.png');
    await writeFile(file, 'not an image');
    expect(() => update('--logo', file)).toThrow('sello account update: --logo: expected a PNG image');
  });
});
