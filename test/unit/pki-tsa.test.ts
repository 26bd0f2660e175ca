// The RFC 3161 TSA, checked with `openssl ts` (query, reply -text, verify), and the token verifier,
// checked against tokens from an OpenSSL-run TSA. The clock is read once; OpenSSL verifies
// certificates against the real one.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateServicePki, importPki } from '../../src/pki/material.js';
import type { LoadedPki } from '../../src/pki/material-types.js';
import { certificatesToPem, derToPem, pemToDer } from '../../src/pki/pem.js';
import { importPrivateKey, parseCertificate, randomSerialHex } from '../../src/pki/primitives.js';
import { softwareServiceKey } from '../../src/pki/service-key.js';
import { createTimeStampReply, createTimeStampToken } from '../../src/pki/tsa.js';
import { verifyTimeStampToken } from '../../src/pki/cms/index.js';
import { timeStampTokenFromReply, verifyTimeStampReply } from '../../src/pki/tsa-verify.js';

const NOW = new Date();
const POLICY = '1.3.6.1.4.1.99999.3161.1';
const dir = mkdtempSync(join(tmpdir(), 'sello-pki-tsa-'));
const DATA = Buffer.from('%PDF-1.7 the bytes being time-stamped\n');
const IMPRINT = createHash('sha256').update(DATA).digest();

function openssl(...args: string[]): { ok: boolean; out: string } {
  const result = spawnSync('openssl', args, { cwd: dir, encoding: 'utf8' });
  return { ok: result.status === 0, out: `${result.stdout}${result.stderr}` };
}
function must(...args: string[]): string {
  const result = openssl(...args);
  expect(result.ok, `openssl ${args.join(' ')}\n${result.out}`).toBe(true);
  return result.out;
}
const file = (name: string) => readFileSync(join(dir, name));
const put = (name: string, data: Uint8Array | string) => writeFileSync(join(dir, name), data);

let pki: LoadedPki;
const reply = async (queryFile: string, replyFile: string, serialNumber = randomSerialHex()) => {
  const der = await createTimeStampReply(pki, file(queryFile), { now: NOW, serialNumber, policyOid: POLICY });
  put(replyFile, der);
  return der;
};
/** The nonce of a query, as `openssl ts -query -text` prints it. */
const queryNonce = (queryFile: string) => BigInt(/Nonce: (0x[0-9A-F]+)/.exec(must('ts', '-query', '-in', queryFile, '-text'))![1]);

beforeAll(async () => {
  const material = await generateServicePki({ organization: 'Sello TSA Test', baseUrl: 'https://tsa.example.test', now: NOW });
  pki = await importPki(material);
  put('root.pem', derToPem(material.root.certificateDer, 'CERTIFICATE'));
  put('chain.pem', certificatesToPem(pki.chainDer.slice(0, -1)));
  put('tsa-chain.pem', certificatesToPem([material.tsa.certificateDer, ...pki.chainDer.slice(0, -1)]));
  put('data.bin', DATA);
  put('tampered.bin', Buffer.concat([DATA, Buffer.from(' ')]));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('createTimeStampReply, checked by openssl ts', () => {
  it('grants a SHA-256 request without nonce, with the policy, accuracy and TSA name', async () => {
    must('ts', '-query', '-data', 'data.bin', '-sha256', '-cert', '-no_nonce', '-out', 'q1.tsq');
    await reply('q1.tsq', 'r1.tsr', '5eed0001cafe0002');
    const text = must('ts', '-reply', '-in', 'r1.tsr', '-text');
    expect(text).toContain('Status: Granted.');
    expect(text).toContain(`Policy OID: ${POLICY}`);
    expect(text).toContain('Serial number: 0x5EED0001CAFE0002');
    expect(text).toContain('Nonce: unspecified');
    expect(text).toContain('Accuracy: 0x01 seconds');
    expect(text).toContain('TSA: DirName:/O=Sello TSA Test/CN=Sello TSA Test Time-Stamping Authority');
    expect(text.replace(/\s+/g, ' ')).toContain(
      `Message data: 0000 - ${IMPRINT.subarray(0, 8).toString('hex').replace(/(..)/g, '$1 ').trim()}`,
    );
    const verified = openssl('ts', '-verify', '-data', 'data.bin', '-in', 'r1.tsr', '-CAfile', 'root.pem', '-untrusted', 'chain.pem');
    expect(verified.out).toContain('Verification: OK');
    expect(
      openssl('ts', '-verify', '-queryfile', 'q1.tsq', '-in', 'r1.tsr', '-CAfile', 'root.pem', '-untrusted', 'chain.pem').out,
    ).toContain('Verification: OK');
  });

  it('echoes the nonce and verifies against the query', async () => {
    must('ts', '-query', '-data', 'data.bin', '-sha256', '-cert', '-out', 'q2.tsq');
    await reply('q2.tsq', 'r2.tsr');
    const nonce = queryNonce('q2.tsq');
    const text = must('ts', '-reply', '-in', 'r2.tsr', '-text');
    expect(BigInt(/Nonce: (0x[0-9A-F]+)/.exec(text)![1])).toBe(nonce);
    expect(
      openssl('ts', '-verify', '-queryfile', 'q2.tsq', '-in', 'r2.tsr', '-CAfile', 'root.pem', '-untrusted', 'chain.pem').out,
    ).toContain('Verification: OK');
  });

  it('fails verification of tampered data', () => {
    const verified = openssl('ts', '-verify', '-data', 'tampered.bin', '-in', 'r1.tsr', '-CAfile', 'root.pem', '-untrusted', 'chain.pem');
    expect(verified.ok).toBe(false);
    expect(verified.out).toContain('Verification: FAILED');
    expect(verified.out).toContain('message imprint mismatch');
  });

  it('leaves the certificates out when certReq is false, and SHA-512 works too', async () => {
    must('ts', '-query', '-data', 'data.bin', '-sha512', '-no_nonce', '-out', 'q3.tsq');
    await reply('q3.tsq', 'r3.tsr');
    expect(openssl('ts', '-verify', '-data', 'data.bin', '-in', 'r3.tsr', '-CAfile', 'root.pem', '-untrusted', 'chain.pem').out).toContain(
      'Verification: FAILED',
    );
    expect(
      openssl('ts', '-verify', '-data', 'data.bin', '-in', 'r3.tsr', '-CAfile', 'root.pem', '-untrusted', 'tsa-chain.pem').out,
    ).toContain('Verification: OK');
  });

  it('rejects SHA-1 with badAlg, another policy with unacceptedPolicy, garbage with badDataFormat', async () => {
    must('ts', '-query', '-data', 'data.bin', '-sha1', '-out', 'q4.tsq');
    await reply('q4.tsq', 'r4.tsr');
    let text = must('ts', '-reply', '-in', 'r4.tsr', '-text');
    expect(text).toContain('Status: Rejected');
    expect(text).toContain('unrecognized or unsupported algorithm identifier');
    expect(text).toContain('TST info:\nNot included.');

    must('ts', '-query', '-data', 'data.bin', '-sha256', '-tspolicy', '1.2.3.4', '-out', 'q5.tsq');
    await reply('q5.tsq', 'r5.tsr');
    text = must('ts', '-reply', '-in', 'r5.tsr', '-text');
    expect(text).toContain('Status: Rejected');
    expect(text).toContain('the requested TSA policy is not supported by the TSA');

    put('q6.tsq', Buffer.from('not a request'));
    await reply('q6.tsq', 'r6.tsr');
    text = must('ts', '-reply', '-in', 'r6.tsr', '-text');
    expect(text).toContain('the data submitted has the wrong format');
    put('q7.tsq', Buffer.concat([file('q1.tsq'), Buffer.from([0x05, 0x00])]));
    await reply('q7.tsq', 'r7.tsr');
    expect(must('ts', '-reply', '-in', 'r7.tsr', '-text')).toContain('the data submitted has the wrong format');
  });

  it('makes tokens without a request, which openssl verifies against a digest', async () => {
    const token = await createTimeStampToken(
      pki,
      { hash: 'SHA-256', hashedMessage: IMPRINT, certReq: true },
      { now: NOW, serialNumber: randomSerialHex(), policyOid: POLICY },
    );
    put('token.der', token);
    const verified = openssl(
      'ts',
      '-verify',
      '-token_in',
      '-in',
      'token.der',
      '-digest',
      IMPRINT.toString('hex'),
      '-CAfile',
      'root.pem',
      '-untrusted',
      'chain.pem',
    );
    expect(verified.out).toContain('Verification: OK');
    await expect(
      createTimeStampToken(
        pki,
        { hash: 'SHA-256', hashedMessage: IMPRINT.subarray(1) },
        { now: NOW, serialNumber: '01', policyOid: POLICY },
      ),
    ).rejects.toThrow();
  });
});

describe('verifyTimeStampToken', () => {
  const trusted = () => [pki.root.certificateDer];

  it('accepts our token and reports what it attests', async () => {
    const replyDer = file('r2.tsr');
    const result = await verifyTimeStampReply(replyDer, {
      expectedImprint: IMPRINT,
      expectedNonce: queryNonce('q2.tsq'),
      trustedRootsDer: trusted(),
      now: NOW,
    });
    expect(result.genTime.getTime()).toBe(Math.floor(NOW.getTime() / 1000) * 1000);
    expect(result.tsaSubject).toBe('O=Sello TSA Test, CN=Sello TSA Test Time-Stamping Authority');
    expect(result.policyOid).toBe(POLICY);
    expect(result.tsaCertificateDer.equals(pki.tsa.certificateDer)).toBe(true);
    const token = timeStampTokenFromReply(file('r1.tsr'));
    expect((await verifyTimeStampToken(token, { expectedImprint: IMPRINT, trustedRootsDer: trusted() })).serialNumber).toBe(
      '5eed0001cafe0002',
    );
  });

  it('rejects a wrong imprint, a wrong nonce, an untrusted root and a refused reply', async () => {
    const token = timeStampTokenFromReply(file('r2.tsr'));
    const nonce = queryNonce('q2.tsq');
    const wrongImprint = createHash('sha256').update('other').digest();
    await expect(verifyTimeStampToken(token, { expectedImprint: wrongImprint, trustedRootsDer: trusted() })).rejects.toThrow(/imprint/);
    await expect(
      verifyTimeStampToken(token, { expectedImprint: IMPRINT, expectedNonce: nonce + 1n, trustedRootsDer: trusted() }),
    ).rejects.toThrow(/nonce/);
    const other = await generateServicePki({ organization: 'Someone Else', baseUrl: 'https://else.example.test', now: NOW });
    await expect(verifyTimeStampToken(token, { expectedImprint: IMPRINT, trustedRootsDer: [other.root.certificateDer] })).rejects.toThrow(
      /trusted root/,
    );
    await expect(verifyTimeStampReply(file('r4.tsr'), { expectedImprint: IMPRINT, trustedRootsDer: trusted() })).rejects.toThrow(
      /did not grant/,
    );
    // The chain must be valid at genTime and, when asked, now.
    await expect(
      verifyTimeStampToken(token, {
        expectedImprint: IMPRINT,
        trustedRootsDer: trusted(),
        now: new Date(NOW.getTime() + 40 * 365 * 86_400_000),
      }),
    ).rejects.toThrow(/not valid/);
  });

  it('rejects a token whose signature or content was altered', async () => {
    const token = Buffer.from(timeStampTokenFromReply(file('r1.tsr')));
    const serialAt = token.indexOf(Buffer.from('5eed0001cafe0002', 'hex'));
    token[serialAt] ^= 1; // inside the TSTInfo: messageDigest no longer matches
    await expect(verifyTimeStampToken(token, { expectedImprint: IMPRINT, trustedRootsDer: trusted() })).rejects.toThrow(/messageDigest/);
    const signed = Buffer.from(timeStampTokenFromReply(file('r1.tsr')));
    signed[signed.length - 10] ^= 1; // inside the signature value, the last field of the SignerInfo
    await expect(verifyTimeStampToken(signed, { expectedImprint: IMPRINT, trustedRootsDer: trusted() })).rejects.toThrow(/signature/);
  });

  it('needs the TSA certificate from somewhere when the token omits it', async () => {
    const token = timeStampTokenFromReply(file('r3.tsr'));
    const sha512 = createHash('sha512').update(DATA).digest();
    const options = { expectedImprint: sha512, expectedImprintAlgorithm: 'SHA-512' as const, trustedRootsDer: trusted() };
    await expect(verifyTimeStampToken(token, options)).rejects.toThrow(/TSA certificate/);
    const result = await verifyTimeStampToken(token, { ...options, untrustedDer: [pki.tsa.certificateDer, pki.issuing.certificateDer] });
    expect(result.tsaSubject).toContain('Time-Stamping Authority');
  });

  describe('tokens from an OpenSSL TSA', () => {
    beforeAll(() => {
      put(
        'ts.cnf',
        [
          '[ tsa ]',
          'default_tsa = tsa1',
          '[ tsa1 ]',
          'serial = ./tsaserial',
          'crypto_device = builtin',
          'signer_digest = sha256',
          'default_policy = 1.2.3.4.1',
          'digests = sha256, sha384, sha512',
          'accuracy = secs:1, millisecs:500',
          'ordering = yes',
          'tsa_name = yes',
          'ess_cert_id_chain = no',
          '[ tsa_ext ]',
          'basicConstraints = CA:FALSE',
          'keyUsage = critical, digitalSignature',
          'extendedKeyUsage = critical, timeStamping',
          '[ plain_ext ]',
          'basicConstraints = CA:FALSE',
          'extendedKeyUsage = timeStamping',
        ].join('\n'),
      );
      put('tsaserial', '01\n');
      must(
        'req',
        '-x509',
        '-newkey',
        'rsa:2048',
        '-nodes',
        '-keyout',
        'other-root.key',
        '-out',
        'other-root.pem',
        '-subj',
        '/O=Other/CN=Other Root',
        '-days',
        '30',
        '-addext',
        'basicConstraints=critical,CA:TRUE',
        '-addext',
        'keyUsage=critical,keyCertSign,cRLSign',
      );
      must(
        'req',
        '-newkey',
        'ec',
        '-pkeyopt',
        'ec_paramgen_curve:P-256',
        '-nodes',
        '-keyout',
        'other-tsa.key',
        '-out',
        'other-tsa.csr',
        '-subj',
        '/O=Other/CN=Other TSA',
      );
      must(
        'x509',
        '-req',
        '-in',
        'other-tsa.csr',
        '-CA',
        'other-root.pem',
        '-CAkey',
        'other-root.key',
        '-CAcreateserial',
        '-days',
        '30',
        '-out',
        'other-tsa.pem',
        '-extfile',
        'ts.cnf',
        '-extensions',
        'tsa_ext',
      );
      // A certificate OpenSSL itself refuses to sign time-stamps with: its EKU is not critical.
      must(
        'x509',
        '-req',
        '-in',
        'other-tsa.csr',
        '-CA',
        'other-root.pem',
        '-CAkey',
        'other-root.key',
        '-days',
        '30',
        '-out',
        'plain-tsa.pem',
        '-extfile',
        'ts.cnf',
        '-extensions',
        'plain_ext',
      );
      must(
        'ts',
        '-reply',
        '-config',
        'ts.cnf',
        '-queryfile',
        'q2.tsq',
        '-signer',
        'other-tsa.pem',
        '-inkey',
        'other-tsa.key',
        '-out',
        'other.tsr',
      );
    });
    const otherRoot = () => pemToDer(readFileSync(join(dir, 'other-root.pem'), 'utf8'), 'CERTIFICATE');

    it('accepts an ECDSA token with ESS signing-certificate v1 when its root is trusted', async () => {
      expect(must('ts', '-reply', '-in', 'other.tsr', '-text')).toContain('Status: Granted.');
      const result = await verifyTimeStampReply(file('other.tsr'), {
        expectedImprint: IMPRINT,
        expectedNonce: queryNonce('q2.tsq'),
        trustedRootsDer: [pki.root.certificateDer, otherRoot()],
      }); // no `now`: OpenSSL made its certificate after NOW was read; genTime is its own clock
      expect(result.tsaSubject).toBe('O=Other, CN=Other TSA');
      expect(result.policyOid).toBe('1.2.3.4.1');
    });

    it('rejects it when only our root is trusted, and a TSA certificate without the critical EKU', async () => {
      await expect(
        verifyTimeStampReply(file('other.tsr'), { expectedImprint: IMPRINT, trustedRootsDer: [pki.root.certificateDer] }),
      ).rejects.toThrow(/trusted root/);
      // Signed by our code (openssl ts -reply refuses this certificate), bypassing importPki's checks.
      const plainDer = pemToDer(readFileSync(join(dir, 'plain-tsa.pem'), 'utf8'), 'CERTIFICATE');
      const key = await importPrivateKey(pemToDer(readFileSync(join(dir, 'other-tsa.key'), 'utf8'), 'PRIVATE KEY'));
      const impostor: LoadedPki = {
        ...pki,
        tsa: {
          certificateDer: plainDer,
          certificate: parseCertificate(plainDer),
          key: await softwareServiceKey(key, 'an impostor TSA key'),
        },
        chainDer: [otherRoot()],
      };
      const token = await createTimeStampToken(
        impostor,
        { hash: 'SHA-256', hashedMessage: IMPRINT, certReq: true },
        { now: NOW, serialNumber: randomSerialHex(), policyOid: POLICY },
      );
      await expect(verifyTimeStampToken(token, { expectedImprint: IMPRINT, trustedRootsDer: [otherRoot()] })).rejects.toThrow(
        /critical EKU/,
      );
    });
  });
});
