// The signing path's shortcuts give what the long way gave: node:crypto's signatures are
// WebCrypto's bytes under pkijs's AlgorithmIdentifier, a certificate joined from its signed TBS is
// the DER pkijs would write, links remembered by the path validator never vouch for a look-alike,
// and a time-stamp reply read by its DER headers is judged as one read whole (BER included).
import { KeyObject, constants, createHash, verify } from 'node:crypto';
import * as asn1js from 'asn1js';
import * as pkijs from 'pkijs';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildCertificate, buildName, keyUsageExtension } from '../../src/pki/certificate-builder.js';
import { validateChain } from '../../src/pki/chain.js';
import { addSignatureTimestamp, createCadesSignature, encodeCms } from '../../src/pki/cms/index.js';
import { OID } from '../../src/pki/cms/oids.js';
import { derChildren } from '../../src/pki/der-elements.js';
import { generateServicePki, importPki } from '../../src/pki/material.js';
import type { LoadedPki, PkiMaterial } from '../../src/pki/material-types.js';
import {
  certificateDer,
  engine,
  generateKeyPair,
  hashForKey,
  importPrivateKey,
  nodeSigner,
  signData,
  subtle,
  toArrayBuffer,
} from '../../src/pki/primitives.js';
import { createTimeStampRequest, randomNonce } from '../../src/pki/tsa-request.js';
import { createTimeStampReply } from '../../src/pki/tsa.js';
import { timeStampTokenFromReply, verifyTimeStampReply } from '../../src/pki/tsa-verify.js';
import { berCms } from '../helpers/ber-cms.js';

const NOW = new Date();
const DATA = Buffer.from('the signed attributes of a signature');
let material: PkiMaterial;
let pki: LoadedPki;

beforeAll(async () => {
  material = await generateServicePki({ organization: 'Sello Path Test', baseUrl: 'https://path.example.test', now: NOW });
  pki = await importPki(material);
});

describe('signatures made at once by node:crypto', () => {
  it('are the bytes WebCrypto makes, under the AlgorithmIdentifier pkijs writes', async () => {
    const { privateKey, publicKey } = await generateKeyPair('rsa-2048', false);
    const made = await signData(privateKey, DATA);
    const webCrypto = Buffer.from(await subtle.sign('RSASSA-PKCS1-v1_5', privateKey, DATA));
    expect(made.signature.equals(webCrypto)).toBe(true);
    const { signatureAlgorithm } = await engine.getSignatureParameters(privateKey, hashForKey(privateKey));
    expect(Buffer.from(made.algorithm.toSchema().toBER(false))).toEqual(Buffer.from(signatureAlgorithm.toSchema().toBER(false)));
    expect(verify('sha256', DATA, KeyObject.from(publicKey), made.signature)).toBe(true);
  });

  it('write ECDSA as the DER SEQUENCE that X.509 and CMS carry', async () => {
    const { privateKey, publicKey } = await generateKeyPair('ecdsa-p256', false);
    const made = await signData(privateKey, DATA);
    expect(made.signature[0]).toBe(0x30);
    expect(made.algorithm.algorithmId).toBe('1.2.840.10045.4.3.2');
    expect(verify('sha256', DATA, { key: KeyObject.from(publicKey), dsaEncoding: 'der' }, made.signature)).toBe(true);
  });

  it('leave other keys to WebCrypto, which still signs with them', async () => {
    const pss = (await subtle.generateKey(
      { name: 'RSA-PSS', modulusLength: 2048, publicExponent: new Uint8Array([1, 0, 1]), hash: 'SHA-256' },
      false,
      ['sign', 'verify'],
    )) as CryptoKeyPair;
    expect(nodeSigner(pss.privateKey)).toBeUndefined();
    const made = await signData(pss.privateKey, DATA);
    expect(made.algorithm.algorithmId).toBe('1.2.840.113549.1.1.10');
    const key = { key: KeyObject.from(pss.publicKey), padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: 32 };
    expect(verify('sha256', DATA, key, made.signature)).toBe(true);
  });
});

describe('a certificate joined from its signed TBSCertificate', () => {
  it('is byte for byte what pkijs signs and encodes', async () => {
    const { publicKey } = await generateKeyPair('rsa-2048', false);
    const der = await buildCertificate({
      serialHex: '4a11',
      subject: buildName({ commonName: 'Ana Path' }),
      publicKey,
      notBefore: new Date(NOW.getTime() - 60_000),
      notAfter: new Date(NOW.getTime() + 86_400_000),
      signer: { certificate: pki.issuing.certificate, key: pki.issuing.key },
      extensions: [keyUsageExtension([0, 1])],
    });
    const again = pkijs.Certificate.fromBER(toArrayBuffer(der));
    const issuingKey = await importPrivateKey(material.issuing.privateKeyPkcs8!);
    await again.sign(issuingKey, hashForKey(issuingKey), engine);
    expect(certificateDer(again).equals(der)).toBe(true);
  });
});

describe('the CMS checked from its own DER, by node:crypto', () => {
  const leafFor = async (publicKey: CryptoKey) =>
    buildCertificate({
      serialHex: '4c33',
      subject: buildName({ commonName: 'Beto Path' }),
      publicKey,
      notBefore: new Date(NOW.getTime() - 60_000),
      notAfter: new Date(NOW.getTime() + 86_400_000),
      signer: { certificate: pki.issuing.certificate, key: pki.issuing.key },
      extensions: [keyUsageExtension([0, 1])],
    });
  const sign = (certificateDer: Buffer, privateKey: CryptoKey) =>
    createCadesSignature({
      signer: { certificateDer, privateKey, chainDer: [certificateDer, ...pki.chainDer] },
      contentDigest: createHash('sha256').update(DATA).digest(),
      trustedRootsDer: [material.root.certificateDer],
      at: NOW,
    });

  it("signs with the certificate's key, and refuses a key that is not the certificate's", async () => {
    for (const kind of ['rsa-2048', 'ecdsa-p256'] as const) {
      const mine = await generateKeyPair(kind, false);
      const certificateDer = await leafFor(mine.publicKey);
      const { signatureValue } = await sign(certificateDer, mine.privateKey);
      expect(signatureValue.length).toBeGreaterThan(0);
      const other = await generateKeyPair(kind, false);
      await expect(sign(certificateDer, other.privateKey)).rejects.toThrow(/is the key the certificate's/);
    }
  });
});

describe('the CMS written from the bytes its signer checked', () => {
  it('is, written from the bytes just signed and with its time-stamp token spliced in, byte for byte what pkijs encodes for the same SignedData', async () => {
    for (const kind of ['rsa-2048', 'ecdsa-p256'] as const) {
      const mine = await generateKeyPair(kind, false);
      const certificateDer = await buildCertificate({
        serialHex: kind === 'rsa-2048' ? '4c34' : '00ff34', // a serial whose INTEGER needs a leading zero octet
        subject: buildName({ commonName: 'Beto Splice', organization: 'Sello Path Test', country: 'MX' }),
        publicKey: mine.publicKey,
        notBefore: new Date(NOW.getTime() - 60_000),
        notAfter: new Date(NOW.getTime() + 86_400_000),
        signer: { certificate: pki.issuing.certificate, key: pki.issuing.key },
        extensions: [keyUsageExtension([0, 1])],
      });
      const { signedData, signatureValue, cms } = await createCadesSignature({
        signer: { certificateDer, privateKey: mine.privateKey, chainDer: [certificateDer, ...pki.chainDer] },
        contentDigest: createHash('sha256').update(DATA).digest(),
        trustedRootsDer: [material.root.certificateDer],
        at: NOW,
      });
      const pkijsCms = () =>
        Buffer.from(new pkijs.ContentInfo({ contentType: OID.signedData, content: signedData.toSchema(true) }).toSchema().toBER(false));
      expect(Buffer.from(cms)).toEqual(pkijsCms()); // the bytes the signer checked
      expect(Buffer.from(encodeCms(signedData))).toEqual(pkijsCms());

      const imprint = createHash('sha256').update(signatureValue).digest();
      const reply = await createTimeStampReply(pki, createTimeStampRequest(imprint, randomNonce()), {
        now: NOW,
        serialNumber: '02',
        policyOid: '1.3.6.1.4.1.99999.1',
      });
      const token = timeStampTokenFromReply(reply);
      addSignatureTimestamp(signedData, token);
      const written = Buffer.from(encodeCms(signedData, cms));
      expect(Buffer.from(encodeCms(signedData))).toEqual(written);
      signedData.signerInfos[0].unsignedAttrs = new pkijs.SignedAndUnsignedAttributes({
        type: 1,
        attributes: [new pkijs.Attribute({ type: OID.signatureTimeStampToken, values: [asn1js.fromBER(toArrayBuffer(token)).result] })],
      });
      expect(written).toEqual(pkijsCms());
      expect(written.includes(Buffer.from(token))).toBe(true); // the TSA's bytes, not an encoding of them
    }
  });
});

describe('certificate links remembered by path validation', () => {
  it('vouch for the exact certificates only: one naming the same issuer and key identifier, signed by another key, does not pass', async () => {
    const options = { trustedRootsDer: [material.root.certificateDer], untrustedDer: [], at: [NOW] };
    expect(validateChain(material.issuing.certificateDer, options).ok).toBe(true); // issuing CA by the root: remembered
    // The issuing CA's subject, issued in the root's name with the root's key identifier, signed by another key.
    const other = await generateKeyPair('rsa-3072', false);
    const forged = await buildCertificate({
      serialHex: '4b22',
      subject: pki.issuing.certificate.subject,
      publicKey: other.publicKey,
      notBefore: new Date(NOW.getTime() - 60_000),
      notAfter: new Date(NOW.getTime() + 86_400_000),
      signer: { certificate: pki.root.certificate, key: other.privateKey },
      extensions: [keyUsageExtension([0])],
    });
    const result = validateChain(forged, options);
    expect(result.ok).toBe(false);
    expect(validateChain(material.issuing.certificateDer, options).ok).toBe(true);
  });
});

describe('a time-stamp reply read by its DER headers', () => {
  const stamp = async () => {
    const imprint = createHash('sha256').update(DATA).digest();
    const nonce = randomNonce();
    const reply = await createTimeStampReply(pki, createTimeStampRequest(imprint, nonce), {
      now: NOW,
      serialNumber: '01',
      policyOid: '1.3.6.1.4.1.99999.1',
    });
    return { reply, options: { expectedImprint: imprint, expectedNonce: nonce, trustedRootsDer: [material.root.certificateDer] } };
  };

  it('finds the reply’s two fields and the token’s certificates without parsing them', async () => {
    const { reply } = await stamp();
    const fields = derChildren(reply);
    expect(fields?.map((f) => f.tag)).toEqual([0x30, 0x30]);
    expect(derChildren(Buffer.concat([reply, Buffer.of(0)]))).toBeUndefined(); // not one element
    expect(derChildren(berCms(timeStampTokenFromReply(reply)))).toBeUndefined(); // indefinite lengths
  });

  it('verifies the same token whether the reply and token are DER or BER', async () => {
    const { reply, options } = await stamp();
    const fromDer = await verifyTimeStampReply(reply, options);
    const token = timeStampTokenFromReply(reply);
    const status = reply.subarray(derChildren(reply)![0].start, derChildren(reply)![0].end);
    // The same reply with indefinite lengths around it and through the token: read whole, as before.
    const berReply = Buffer.concat([Buffer.of(0x30, 0x80), status, berCms(token), Buffer.of(0, 0)]);
    const fromBer = await verifyTimeStampReply(berReply, options);
    expect(fromBer.serialNumber).toBe(fromDer.serialNumber);
    expect(fromBer.tsaSubject).toBe(fromDer.tsaSubject);
    expect(fromDer.tokenDer.equals(token)).toBe(true);
  });

  it('refuses the same replies when the imprint or the nonce is another', async () => {
    const { reply, options } = await stamp();
    const berReply = Buffer.concat([
      Buffer.of(0x30, 0x80),
      reply.subarray(derChildren(reply)![0].start, derChildren(reply)![0].end),
      berCms(timeStampTokenFromReply(reply)),
      Buffer.of(0, 0),
    ]);
    for (const r of [reply, berReply]) {
      await expect(verifyTimeStampReply(r, { ...options, expectedImprint: Buffer.alloc(32, 7) })).rejects.toThrow(/imprint/);
      await expect(verifyTimeStampReply(r, { ...options, expectedNonce: randomNonce() })).rejects.toThrow(/nonce/);
    }
  });

  it('refuses a token whose signature was altered, read the short way', async () => {
    const { reply, options } = await stamp();
    const altered = Buffer.from(reply);
    altered[altered.length - 5] ^= 0x01; // inside the TSA's signature value, the token's last field
    await expect(verifyTimeStampReply(altered, options)).rejects.toThrow(/signature/);
  });
});
