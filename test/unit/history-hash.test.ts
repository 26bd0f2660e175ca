// The canonical serialization and hash of history entries: RFC 8785 vectors, and the exact bytes an
// entry's hash covers (docs/api.md "Document history" shows the same example).
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { GENESIS_HASH, canonicalJson, entryHash, type HashedEntry } from '../../src/domain/history/history-hash.js';
import { checkChain } from '../../src/domain/history/verify-history.js';
import type { StoredHistoryEntry } from '../../src/store/history-repo.js';

describe('canonicalJson', () => {
  it('serializes the RFC 8785 example (§3.2.2) as the RFC does', () => {
    const input = JSON.parse(String.raw`{
      "numbers": [333333333.33333329, 1E30, 4.50, 2e-3, 0.000000000000000000000000001],
      "string": "\u20ac$\u000F\u000aA'\u0042\u0022\u005c\\\"\/",
      "literals": [null, true, false]
    }`) as unknown;
    expect(canonicalJson(input)).toBe(
      String.raw`{"literals":[null,true,false],"numbers":[333333333.3333333,1e+30,4.5,0.002,1e-27],"string":"€$\u000f\nA'B\"\\\\\"/"}`,
    );
  });

  it('sorts keys by UTF-16 code units (RFC 8785 §3.2.3), at every depth', () => {
    const input = JSON.parse(
      String.raw`{"\u20ac": 1, "\r": 2, "\ufb33": 3, "1": 4, "\ud83d\ude00": 5, "\u0080": 6, "\u00f6": 7}`,
    ) as Record<string, number>;
    const out = canonicalJson({ z: input, a: [{ b: 1, a: 2 }] });
    expect(out.startsWith('{"a":[{"a":2,"b":1}],"z":')).toBe(true);
    expect(out.slice(out.indexOf('"z":') + 4, -1)).toBe('{"\\r":2,"1":4,"\u0080":6,"ö":7,"€":1,"😀":5,"דּ":3}');
  });

  it('refuses what JSON cannot carry instead of dropping it', () => {
    expect(() => canonicalJson({ a: undefined })).toThrow(TypeError);
    expect(() => canonicalJson(Number.NaN)).toThrow(TypeError);
    expect(() => canonicalJson(new Date(0))).toThrow(TypeError);
    expect(() => canonicalJson(1n)).toThrow(TypeError);
  });
});

describe('entryHash', () => {
  // A whole millisecond of the moment the test runs: no date that the calendar can pass.
  const at = new Date(Date.now());
  const entry: HashedEntry = {
    document: '3f1c2a9e-0000-4000-8000-000000000001',
    seq: 1,
    at,
    action: 'created',
    actor: 'account',
    ip: '203.0.113.7',
    details: { signers: 2, name: 'contract.pdf', origin: 'b64_doc' },
    prev_hash: GENESIS_HASH,
  };

  it('is the SHA-256 hex of the canonical JSON of the eight fields', () => {
    const canonical =
      `{"action":"created","actor":"account","at":"${at.toISOString()}",` +
      '"details":{"name":"contract.pdf","origin":"b64_doc","signers":2},' +
      '"document":"3f1c2a9e-0000-4000-8000-000000000001","ip":"203.0.113.7",' +
      `"prev_hash":"${'0'.repeat(64)}","seq":1}`;
    expect(entryHash(entry)).toBe(createHash('sha256').update(canonical, 'utf8').digest('hex'));
    expect(entryHash(entry)).toMatch(/^[0-9a-f]{64}$/);
  });

  it('does not depend on the order of the keys of details', () => {
    expect(entryHash({ ...entry, details: { origin: 'b64_doc', name: 'contract.pdf', signers: 2 } })).toBe(entryHash(entry));
  });

  it('changes with every field it covers', () => {
    const base = entryHash(entry);
    const variants: Partial<HashedEntry>[] = [
      { document: '3f1c2a9e-0000-4000-8000-000000000002' },
      { seq: 2 },
      { at: new Date(at.getTime() + 1) },
      { action: 'deleted' },
      { actor: 'system' },
      { ip: null },
      { details: { signers: 3, name: 'contract.pdf', origin: 'b64_doc' } },
      { prev_hash: 'f'.repeat(64) },
    ];
    const hashes = variants.map((v) => entryHash({ ...entry, ...v }));
    expect(new Set([base, ...hashes]).size).toBe(variants.length + 1);
  });
});

describe('checkChain', () => {
  const ticket = '3f1c2a9e-0000-4000-8000-000000000001';
  function chain(n: number): StoredHistoryEntry[] {
    const out: StoredHistoryEntry[] = [];
    for (let seq = 1; seq <= n; seq++) {
      const e = {
        seq,
        at: new Date(Date.now() + seq * 60_000),
        action: 'viewed',
        actor: 'signer:abc',
        ip: null,
        details: {},
        prev_hash: out.at(-1)?.hash ?? GENESIS_HASH,
      };
      out.push({ ...e, hash: entryHash({ document: ticket, ...e }) });
    }
    return out;
  }
  const head = (entries: StoredHistoryEntry[]) => ({
    ticket,
    history_head: entries.at(-1)?.hash ?? GENESIS_HASH,
    history_count: entries.length,
  });

  it('accepts an intact chain, and an empty one', () => {
    const c = chain(4);
    expect(checkChain(head(c), c)).toEqual({ valid: true, entries: 4, first_broken_seq: null, problem: null });
    expect(checkChain(head([]), [])).toMatchObject({ valid: true, entries: 0 });
  });

  it('names an entry appended behind the recorded head', () => {
    const c = chain(4);
    expect(checkChain(head(c.slice(0, 3)), c)).toMatchObject({ valid: false, first_broken_seq: 4 });
  });

  it('names the last entry when the recorded head is another hash', () => {
    const c = chain(3);
    expect(checkChain({ ...head(c), history_head: 'f'.repeat(64) }, c)).toMatchObject({ valid: false, first_broken_seq: 3 });
  });

  it('names the entry of another document moved in, and a first entry that does not start the chain', () => {
    const c = chain(3);
    expect(checkChain({ ...head(c), ticket: 'another' }, c)).toMatchObject({ valid: false, first_broken_seq: 1 });
    const shifted = chain(3)
      .slice(1)
      .map((e, i) => ({ ...e, seq: i + 1 }));
    expect(checkChain(head(shifted), shifted)).toMatchObject({
      valid: false,
      first_broken_seq: 1,
      problem: 'entry 1 does not start the chain',
    });
  });
});
