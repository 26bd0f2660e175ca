// The BER reader of pki/ber.ts: the length of one element and its DER form. A DER CMS written
// again in BER (helpers/ber-cms.ts, built on asn1js alone) must come back to the very same DER.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_BER_ELEMENTS, berElementLength, berToDer } from '../../src/pki/ber.js';
import { berCms } from '../helpers/ber-cms.js';
import { createTestPki, type TestPki, type TestSigner } from '../helpers/openssl-pki.js';
import { makeCms } from '../helpers/signed-pdfs.js';

let pki: TestPki;
let ana: TestSigner;

beforeAll(async () => {
  pki = await createTestPki();
  ana = await pki.issueSigner({ cn: 'Ana García', email: 'ana@example.com' });
}, 60_000);
afterAll(() => pki?.dispose());

const hex = (s: string) => Buffer.from(s.replace(/\s/g, ''), 'hex');

describe('berToDer', () => {
  it('a CMS written in BER comes back to the DER it was made from; a DER one stays as it is', async () => {
    const der = Buffer.from(await makeCms(pki, { signer: ana, field: 'Ana', timestamp: true }, Buffer.alloc(32, 7)));
    const ber = berCms(der);
    expect(ber.equals(der)).toBe(false);
    expect(berElementLength(Buffer.concat([ber, Buffer.alloc(64)]))).toBe(ber.length);
    // The order of SET OF members is kept (openssl's -cmsout would sort the certificates).
    expect(berToDer(ber).equals(der)).toBe(true);
    expect(berToDer(der).equals(der)).toBe(true);
  });

  it('joins strings in pieces, BIT STRINGs by their unused bits, and shortens long-form lengths', () => {
    // OCTET STRING in two pieces, one of them itself in pieces.
    expect(berToDer(hex('24 80 04 02 0102 24 80 04 01 03 00 00 00 00')).equals(hex('04 03 010203'))).toBe(true);
    // BIT STRING in two pieces: only the last may leave bits unused.
    expect(berToDer(hex('23 80 03 02 00 ff 03 02 04 f0 00 00')).equals(hex('03 03 04 ff f0'))).toBe(true);
    // A SEQUENCE with a three-octet length for two octets of content, and an INTEGER inside.
    expect(berToDer(hex('30 83 000003 02 01 05')).equals(hex('30 03 020105'))).toBe(true);
  });

  it('refuses what is not well-formed BER', () => {
    for (const bad of [
      '30 80 02 01 05', // indefinite length never closed
      '04 80 01 00 00', // a primitive with an indefinite length
      '30 05 02 01 05', // a length past the end
      '30 02 00 00', // an end-of-contents marker inside a definite length
    ]) {
      expect(() => berToDer(hex(bad)), bad).toThrow();
      expect(berElementLength(hex(bad)), bad).toBe(0);
    }
  });

  it('refuses strings in pieces that do not join: unused bits before the last, a piece of another type', () => {
    // Well-formed elements (their length is known), but no DER string can be made of them.
    expect(() => berToDer(hex('23 80 03 02 04 ff 03 01 00 00 00'))).toThrow(/BIT STRING/);
    expect(() => berToDer(hex('24 80 02 01 05 00 00'))).toThrow(/another type/);
  });

  it('bounds nesting, so a hostile encoding cannot exhaust the stack', () => {
    const deep = Buffer.concat([Buffer.alloc(100_000 * 2, 0).fill(Buffer.of(0x30, 0x80)), Buffer.alloc(100_000 * 2, 0)]);
    expect(berElementLength(deep)).toBe(0);
    expect(() => berToDer(deep)).toThrow(/deeper/);
  });

  it('bounds the elements read, so a long run of tiny elements cannot exhaust the memory', () => {
    // An indefinite SEQUENCE of NULLs (two octets each): every one would be held as an object.
    const run = (nulls: number) => Buffer.concat([hex('30 80'), Buffer.alloc(nulls * 2).fill(Buffer.of(0x05, 0x00)), hex('00 00')]);
    const within = run(MAX_BER_ELEMENTS - 1);
    expect(berElementLength(within)).toBe(within.length);
    const past = run(MAX_BER_ELEMENTS);
    expect(berElementLength(past)).toBe(0);
    expect(() => berToDer(past)).toThrow(/more than 200000 elements/);
  });
});

describe('berElementLength', () => {
  it('is the length of the first element, whatever follows it', () => {
    expect(berElementLength(hex('30 80 02 01 05 00 00 00 00 00'))).toBe(7);
    expect(berElementLength(hex('30 03 02 01 05 00 00'))).toBe(5);
    expect(berElementLength(hex(''))).toBe(0);
  });
});
