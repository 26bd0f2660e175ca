// The scheme a signer's own key signs with, and the value as the CMS carries it
// (pki/cms/external-scheme.ts): ECDSA's r || s from WebCrypto turned into the DER ECDSA-Sig-Value,
// the hash of the curve's strength, an RSA value recognised as PKCS#1 v1.5 or PSS with the salt it
// was made with, and a key this service cannot sign with named in the refusal.
import { execFileSync } from 'node:child_process';
import { type KeyObject, constants, createPrivateKey, sign, verify, X509Certificate } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as asn1js from 'asn1js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkSignatureValue, externalScheme, p1363ToDer } from '../../src/pki/cms/external-scheme.js';
import { OID } from '../../src/pki/cms/oids.js';

let dir: string;
const keys: Record<string, { der: Buffer; key: KeyObject }> = {};

/** A self-signed certificate and its key, made by openssl (`genpkey` options). */
function selfSigned(name: string, genpkey: string[]) {
  const key = join(dir, `${name}.key`);
  execFileSync('openssl', ['genpkey', ...genpkey, '-out', key]);
  execFileSync('openssl', [
    'req',
    '-x509',
    '-new',
    '-key',
    key,
    '-subj',
    `/CN=${name}`,
    '-days',
    '2',
    '-outform',
    'DER',
    '-out',
    join(dir, `${name}.der`),
  ]);
  keys[name] = { der: readFileSync(join(dir, `${name}.der`)), key: createPrivateKey(readFileSync(key)) };
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'sello-scheme-'));
  selfSigned('p256', ['-algorithm', 'EC', '-pkeyopt', 'ec_paramgen_curve:P-256']);
  selfSigned('p384', ['-algorithm', 'EC', '-pkeyopt', 'ec_paramgen_curve:P-384']);
  selfSigned('rsa', ['-algorithm', 'RSA', '-pkeyopt', 'rsa_keygen_bits:2048']);
  selfSigned('pss', ['-algorithm', 'RSA-PSS', '-pkeyopt', 'rsa_keygen_bits:2048']);
  selfSigned('ed25519', ['-algorithm', 'ED25519']);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const data = Buffer.from('the DER of the signed attributes');

describe('the scheme of a signer key', () => {
  it('names the WebCrypto algorithm, hash, curve and salt of each key', () => {
    expect(externalScheme(keys.p256.der)).toEqual({ name: 'ECDSA', hash: 'SHA-256', namedCurve: 'P-256' });
    expect(externalScheme(keys.p384.der)).toEqual({ name: 'ECDSA', hash: 'SHA-384', namedCurve: 'P-384' });
    expect(externalScheme(keys.rsa.der)).toEqual({ name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256' });
    expect(externalScheme(keys.pss.der)).toEqual({ name: 'RSA-PSS', hash: 'SHA-256', saltLength: 32 });
    expect(() => externalScheme(keys.ed25519.der)).toThrow(/ed25519\) is neither RSA nor ECDSA/);
  });
});

describe('ECDSA values', () => {
  it('r || s becomes a DER SEQUENCE of two INTEGERs, a high bit padded, leading zeros dropped', () => {
    const r = Buffer.alloc(32, 0);
    r[1] = 0x01;
    const s = Buffer.alloc(32, 0xff);
    const der = p1363ToDer(Buffer.concat([r, s]));
    const parsed = asn1js.fromBER(new Uint8Array(der)).result as asn1js.Sequence;
    const [ri, si] = parsed.valueBlock.value.map((v) => Buffer.from((v as asn1js.Integer).valueBlock.valueHexView));
    expect(ri.equals(r.subarray(1))).toBe(true);
    expect(si.equals(Buffer.concat([Buffer.from([0]), s]))).toBe(true);
    expect(Buffer.from(parsed.toBER(false)).equals(der)).toBe(true);
  });

  it('a WebCrypto value and a DER value verify alike and are carried as the same DER under ecdsa-with-SHA384', () => {
    const raw = sign('sha384', data, { key: keys.p384.key, dsaEncoding: 'ieee-p1363' });
    const fromRaw = checkSignatureValue(keys.p384.der, data, raw)!;
    expect(fromRaw.signatureAlgorithm.algorithmId).toBe(OID.ecdsaWithSha384);
    expect(fromRaw.signatureAlgorithm.algorithmParams).toBeUndefined();
    expect(verify('sha384', data, new X509Certificate(keys.p384.der).publicKey, fromRaw.value)).toBe(true);
    const der = sign('sha384', data, keys.p384.key);
    expect(checkSignatureValue(keys.p384.der, data, der)!.value.equals(der)).toBe(true);
    // A value made with SHA-256 is not the one asked for with a P-384 key.
    expect(
      checkSignatureValue(keys.p384.der, data, sign('sha256', data, { key: keys.p384.key, dsaEncoding: 'ieee-p1363' })),
    ).toBeUndefined();
    expect(checkSignatureValue(keys.p384.der, data, raw.subarray(1))).toBeUndefined();
  });
});

describe('RSA values', () => {
  it('PKCS#1 v1.5 is sha256WithRSAEncryption with NULL parameters', () => {
    const checked = checkSignatureValue(keys.rsa.der, data, sign('sha256', data, keys.rsa.key))!;
    expect(checked.signatureAlgorithm.algorithmId).toBe(OID.sha256WithRsa);
    expect(checked.signatureAlgorithm.algorithmParams).toBeInstanceOf(asn1js.Null);
  });

  it('PSS is RSASSA-PSS with the salt the value was made with: 32, 20 (the parameters’ default), or the largest (OpenSSL’s)', () => {
    const salt = (value: Buffer, der: Buffer) => {
      const checked = checkSignatureValue(der, data, value)!;
      expect(checked.signatureAlgorithm.algorithmId).toBe(OID.rsassaPss);
      const params = checked.signatureAlgorithm.algorithmParams as asn1js.Sequence;
      const saltField = params.valueBlock.value.find((v) => v.idBlock.tagClass === 3 && v.idBlock.tagNumber === 2) as asn1js.Constructed;
      // DER leaves out a field at its DEFAULT (X.690 §11.5): an absent saltLength is 20.
      return saltField ? (saltField.valueBlock.value[0] as asn1js.Integer).valueBlock.valueDec : 20;
    };
    const pss = (key: KeyObject, saltLength: number) => sign('sha256', data, { key, padding: constants.RSA_PKCS1_PSS_PADDING, saltLength });
    expect(salt(pss(keys.rsa.key, 32), keys.rsa.der)).toBe(32);
    expect(salt(pss(keys.pss.key, 32), keys.pss.der)).toBe(32);
    expect(salt(pss(keys.rsa.key, 256 - 32 - 2), keys.rsa.der)).toBe(222);
    expect(salt(pss(keys.rsa.key, 20), keys.rsa.der)).toBe(20);
    expect(checkSignatureValue(keys.rsa.der, data, pss(keys.rsa.key, 48))).toBeUndefined();
  });
});
