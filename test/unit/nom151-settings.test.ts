// NOM-151 settings: the provider's environment variables, the operator's account switch and the
// hash a client sends.
import { describe, expect, it } from 'vitest';
import { parseAccountCommand } from '../../src/cli/account.js';
import { type ConfigError, loadConfig } from '../../src/config.js';
import { parseSha256 } from '../../src/domain/nom151/parse-hash.js';

const problems = (env: Record<string, string>) => {
  try {
    loadConfig({ NODE_ENV: 'test', ...env });
    return [];
  } catch (err) {
    return (err as ConfigError).problems;
  }
};

describe('SELLO_NOM151_*', () => {
  it('is absent by default: the built-in authority stamps', () => {
    expect(loadConfig({ NODE_ENV: 'test' }).nom151).toBeUndefined();
  });

  it('reads a complete provider', () => {
    const c = loadConfig({
      NODE_ENV: 'test',
      SELLO_NOM151_URL: 'https://psc.example/tsr',
      SELLO_NOM151_TRUST_PEM: '/etc/sello/psc-root.pem',
      SELLO_NOM151_USER: 'sello',
      SELLO_NOM151_PASSWORD: 'secret',
      SELLO_NOM151_POLICY_OID: '2.16.484.101.10.316.2.1',
      SELLO_NOM151_TSA_NAME: ' Example PSC TSA ',
    });
    expect(c.nom151).toStrictEqual({
      url: 'https://psc.example/tsr',
      trustPath: '/etc/sello/psc-root.pem',
      user: 'sello',
      password: 'secret',
      policyOid: '2.16.484.101.10.316.2.1',
      tsaName: 'Example PSC TSA',
    });
  });

  it('lists every mistake at once', () => {
    const p = problems({ SELLO_NOM151_URL: 'ftp://x', SELLO_NOM151_USER: 'a:b', SELLO_NOM151_POLICY_OID: 'policy' });
    expect(p.join('\n')).toMatch(/SELLO_NOM151_URL: expected an http/);
    expect(p.join('\n')).toMatch(/SELLO_NOM151_TRUST_PEM: required/);
    expect(p.join('\n')).toMatch(/SELLO_NOM151_POLICY_OID=/);
    expect(p.join('\n')).toMatch(/SELLO_NOM151_USER and SELLO_NOM151_PASSWORD: set both/);
    expect(p.join('\n')).toMatch(/SELLO_NOM151_USER: must not contain ":"/);
    expect(problems({ SELLO_NOM151_TRUST_PEM: '/x.pem' })).toEqual([
      "SELLO_NOM151_TRUST_PEM: set only with SELLO_NOM151_URL (the provider's RFC 3161 URL)",
    ]);
    expect(problems({ SELLO_NOM151_TSA_NAME: 'Example PSC TSA' })).toEqual([
      "SELLO_NOM151_TSA_NAME: set only with SELLO_NOM151_URL (the provider's RFC 3161 URL)",
    ]);
    expect(
      problems({ SELLO_NOM151_URL: 'https://psc.example/tsr', SELLO_NOM151_TRUST_PEM: '/x.pem', SELLO_NOM151_TSA_NAME: 'x'.repeat(501) }),
    ).toEqual(["SELLO_NOM151_TSA_NAME: at most 500 characters (the CN or the subject of the PSC's time-stamping certificate)"]);
  });
});

describe('sello account update --nom151', () => {
  it('takes on or off, alone or with other changes', () => {
    expect(parseAccountCommand(['update', '--web-id', 'w', '--nom151', 'on'])).toMatchObject({ kind: 'update', nom151Default: true });
    expect(parseAccountCommand(['update', '--web-id', 'w', '--nom151', 'off', '--name', 'N'])).toMatchObject({
      nom151Default: false,
      name: 'N',
    });
    expect(() => parseAccountCommand(['update', '--web-id', 'w', '--nom151', 'yes'])).toThrow(/--nom151 takes on or off/);
  });
});

describe('a SHA-256 from a client', () => {
  const digest = Buffer.alloc(32, 0xab);
  it('is 64 hex digits or 32 bytes in Base64 (standard or URL-safe, padding optional)', () => {
    for (const text of [
      digest.toString('hex'),
      digest.toString('hex').toUpperCase(),
      digest.toString('base64'),
      digest.toString('base64url'),
    ]) {
      expect(parseSha256(text, 'hash').equals(digest)).toBe(true);
    }
  });
  it('refuses anything else, naming the field', () => {
    // Not a string at all is the schema's refusal (StampHashBody), before parseSha256 runs.
    for (const bad of ['', 'ab', Buffer.alloc(20).toString('hex'), Buffer.alloc(48, 0xff).toString('base64'), `${'A'.repeat(42)}B=`]) {
      expect(() => parseSha256(bad, 'hash')).toThrow(/^hash: /);
    }
  });
});
