// The service spells each object identifier once, in pki/cms/oids.ts: a table of algorithms or
// attributes written out again elsewhere can drift from it (a hash accepted by one check and not by
// another), which is how one CMS check came to differ between signing, the SAT path and the verifier.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { OID, hashByOid, oidByHash } from '../../src/pki/cms/oids.js';

const SRC = join(import.meta.dirname, '../../src');
const TABLE = 'pki/cms/oids.ts';
// A quoted dotted number of four arcs or more whose first arc is 0, 1 or 2 (X.660 §A.2): the IPv4
// addresses of examples and listeners (127.0.0.1, 203.0.113.7, 0.0.0.0) are not OIDs.
const OID_LITERAL = /['"`]([012]\.\d+(?:\.\d+){2,})['"`]/g;

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? sources(join(dir, entry.name)) : entry.name.endsWith('.ts') ? [join(dir, entry.name)] : [],
  );
}

/** Every OID literal of `text`, with its line. */
function oidLiterals(text: string): { oid: string; line: number }[] {
  return [...text.matchAll(OID_LITERAL)]
    .filter((m) => m[1] !== '0.0.0.0')
    .map((m) => ({ oid: m[1], line: text.slice(0, m.index).split('\n').length }));
}

describe('the table of object identifiers', () => {
  it('is the only place in src/ that spells an OID', () => {
    const elsewhere = sources(SRC)
      .filter((file) => relative(SRC, file) !== TABLE)
      .flatMap((file) => oidLiterals(readFileSync(file, 'utf8')).map(({ oid, line }) => `${relative(SRC, file)}:${line} ${oid}`));
    expect(elsewhere).toEqual([]);
  });

  it('names each OID once', () => {
    const values = Object.values(OID);
    expect(new Set(values).size).toBe(values.length);
    expect(oidLiterals(readFileSync(join(SRC, TABLE), 'utf8')).map((l) => l.oid)).toEqual(values);
  });

  it('maps the digest OIDs to hashes and back', () => {
    expect(hashByOid('2.16.840.1.101.3.4.2.1')).toBe('SHA-256');
    expect(oidByHash('SHA-256')).toBe(OID.sha256);
    expect(hashByOid(OID.sha3_256)).toBeUndefined(); // SHA-3 is checked in CMS, not used as a hash name
  });

  it('finds a literal written outside the table', () => {
    expect(oidLiterals("const SHA256 = '2.16.840.1.101.3.4.2.1';")).toEqual([{ oid: '2.16.840.1.101.3.4.2.1', line: 1 }]);
    expect(oidLiterals("listen('127.0.0.1')")).toEqual([]);
  });
});
