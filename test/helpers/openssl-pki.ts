// A test PKI made by the openssl CLI, so that what signs and time-stamps in the tests is an
// implementation independent of the code under test:
//   root CA ─┬─ issuing CA ── signer certificates (CN, email in SAN, KU digitalSignature +
//            │                nonRepudiation, EKU emailProtection)
//            ├─ TSA (critical EKU timeStamping), answering with `openssl ts -reply`
//            └─ other TSA (the same, another authority under the same root)
//   rogue root ── rogue TSA   (a well-formed TSA nobody trusts, for the gap-3 tests)
// Signer keys are PKCS#8 imported into WebCrypto as non-extractable CryptoKeys, as production
// keys would be. Everything lives in one temporary directory; call dispose() when done.
import { execFile } from 'node:child_process';
import { createHash, webcrypto } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import * as asn1js from 'asn1js';
import * as pkijs from 'pkijs';

const run = promisify(execFile);
const OID_SHA256 = '2.16.840.1.101.3.4.2.1';

export interface TestSigner {
  cn: string;
  email: string;
  certificateDer: Uint8Array;
  privateKey: CryptoKey;
  /** Leaf first, then the issuing CA and the root, as signPdf wants it. */
  chainDer: Uint8Array[];
  certPath: string;
}

/** How a tampered time-stamp reply is wrong (each must be refused by the signer). */
export type TimestampTamper =
  | 'wrong-imprint' // a genuine token over another digest
  | 'missing-nonce' // a genuine token whose request carried no nonce
  | 'wrong-nonce' // a genuine token echoing another nonce
  | 'untrusted-tsa' // a genuine token from a TSA under a root we do not trust
  | 'rejected' // a reply with status rejection and no token
  | 'bad-signature'; // the TSA's signature value altered after the fact

export type TimestampFn = (imprint: Uint8Array, nonce: Uint8Array) => Promise<Uint8Array>;

export interface TestPki {
  dir: string;
  rootDer: Uint8Array;
  rootPath: string;
  issuingCaDer: Uint8Array;
  tsaCertPath: string;
  rogueRootDer: Uint8Array;
  /** A signer certificate under the issuing CA (RSA 2048 or ECDSA P-256). */
  issueSigner(opts: { cn: string; email: string; keyType?: 'rsa' | 'ec' }): Promise<TestSigner>;
  /** Another certificate for the same key as `signer` (the substitution RFC 5035 §1 describes). */
  reissueSigner(signer: TestSigner, cn: string): Promise<TestSigner>;
  /** RFC 3161 over (imprint, nonce): builds the TimeStampReq, runs `openssl ts -reply`, returns the reply DER. */
  timestamp: TimestampFn;
  /** A genuine reply whose token also carries a ~14 KB certificate: more than signPdf first reserves. */
  bulkyTimestamp: TimestampFn;
  /** Same, answered wrongly in the way named. */
  tamperedTimestamp(kind: TimestampTamper): TimestampFn;
  /** How many replies the TSA has produced (each test can see it was asked). */
  readonly timestampCount: number;
  dispose(): void;
}

function pemToDer(pem: string): Uint8Array {
  const b64 = pem.replace(/-----[^-]+-----/g, '').replace(/\s+/g, '');
  return new Uint8Array(Buffer.from(b64, 'base64'));
}

async function openssl(dir: string, args: string[]): Promise<string> {
  try {
    const { stdout } = await run('openssl', args, { cwd: dir, encoding: 'utf8' });
    return stdout;
  } catch (err) {
    const e = err as { stderr?: string; message: string };
    throw new Error(`openssl ${args.join(' ')} failed: ${e.stderr ?? e.message}`);
  }
}

const EXTENSIONS = `
[ v3_ca ]
basicConstraints = critical, CA:TRUE
keyUsage = critical, keyCertSign, cRLSign
subjectKeyIdentifier = hash
authorityKeyIdentifier = keyid:always

[ v3_tsa ]
basicConstraints = critical, CA:FALSE
keyUsage = critical, digitalSignature, nonRepudiation
extendedKeyUsage = critical, timeStamping
subjectKeyIdentifier = hash
authorityKeyIdentifier = keyid:always
`;

function tsaSection(name: string, dir: string, prefix: string): string {
  return `
[ ${name} ]
dir = ${dir}
serial = $dir/${prefix}-serial
crypto_device = builtin
signer_cert = $dir/${prefix}.pem
signer_key = $dir/${prefix}.key
signer_digest = sha256
default_policy = 1.3.6.1.4.1.99999.1.1
other_policies = 1.3.6.1.4.1.99999.1.2
digests = sha256, sha384, sha512
accuracy = secs:1
ordering = yes
tsa_name = yes
ess_cert_id_chain = no
ess_cert_id_alg = sha256
`;
}

/** Makes the whole PKI in a temporary directory (a few RSA keys: about a second). */
export async function createTestPki(): Promise<TestPki> {
  const dir = mkdtempSync(join(tmpdir(), 'sello-pki-'));
  const p = (f: string) => join(dir, f);
  writeFileSync(p('ext.cnf'), EXTENSIONS);
  writeFileSync(
    p('tsa.cnf'),
    `${tsaSection('tsa', dir, 'tsa')}\n${tsaSection('rogue_tsa', dir, 'rogue-tsa')}\n${tsaSection('other_tsa', dir, 'other-tsa')}\n${tsaSection('bulky_tsa', dir, 'tsa')}certs = $dir/bulky.pem\n`,
  );
  writeFileSync(p('tsa-serial'), '01\n');
  writeFileSync(p('rogue-tsa-serial'), '01\n');
  writeFileSync(p('other-tsa-serial'), '01\n');
  let serial = 100;

  async function selfSigned(name: string, subject: string) {
    await openssl(dir, [
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-sha256',
      '-days',
      '3650',
      '-keyout',
      `${name}.key`,
      '-out',
      `${name}.pem`,
      '-utf8',
      '-subj',
      subject,
      '-addext',
      'basicConstraints=critical,CA:TRUE',
      '-addext',
      'keyUsage=critical,keyCertSign,cRLSign',
      '-addext',
      'subjectKeyIdentifier=hash',
    ]);
  }
  async function issue(name: string, subject: string, ca: string, ext: string, extFile = 'ext.cnf', keyType: 'rsa' | 'ec' = 'rsa') {
    const keyArgs =
      keyType === 'rsa'
        ? ['-algorithm', 'RSA', '-pkeyopt', 'rsa_keygen_bits:2048']
        : ['-algorithm', 'EC', '-pkeyopt', 'ec_paramgen_curve:P-256'];
    await openssl(dir, ['genpkey', ...keyArgs, '-out', `${name}.key`]);
    await openssl(dir, ['req', '-new', '-key', `${name}.key`, '-utf8', '-subj', subject, '-out', `${name}.csr`]);
    await openssl(dir, [
      'x509',
      '-req',
      '-in',
      `${name}.csr`,
      '-CA',
      `${ca}.pem`,
      '-CAkey',
      `${ca}.key`,
      '-set_serial',
      String(serial++),
      '-days',
      '1825',
      '-sha256',
      '-extfile',
      extFile,
      '-extensions',
      ext,
      '-out',
      `${name}.pem`,
    ]);
  }
  const der = (name: string) => pemToDer(readFileSync(p(`${name}.pem`), 'utf8'));

  await selfSigned('root', '/O=Sello Test/CN=Sello Test Root CA');
  await issue('issuing', '/O=Sello Test/CN=Sello Test Issuing CA', 'root', 'v3_ca');
  await issue('tsa', '/O=Sello Test/CN=Sello Test TSA', 'root', 'v3_tsa');
  // A second, genuine TSA under the same root: trusted by chain, but not the authority configured.
  await issue('other-tsa', '/O=Sello Test/CN=Sello Test Other TSA', 'root', 'v3_tsa');
  await selfSigned('rogue-root', '/O=Nobody/CN=Rogue Root CA');
  await issue('rogue-tsa', '/O=Nobody/CN=Rogue TSA', 'rogue-root', 'v3_tsa');
  await openssl(dir, [
    'req',
    '-x509',
    '-newkey',
    'rsa:1024',
    '-nodes',
    '-days',
    '30',
    '-keyout',
    'bulky.key',
    '-out',
    'bulky.pem',
    '-subj',
    '/CN=Bulky',
    '-addext',
    `nsComment=${'x'.repeat(14_000)}`,
  ]);
  const rootDer = der('root');
  const issuingCaDer = der('issuing');
  let count = 0;
  let reqNo = 0;

  /** Runs `openssl ts -reply` on a request built here; `section` picks the TSA. */
  async function reply(imprint: Uint8Array, nonce: Uint8Array | undefined, section = 'tsa'): Promise<Uint8Array> {
    const n = reqNo++;
    const req = new pkijs.TimeStampReq({
      version: 1,
      messageImprint: new pkijs.MessageImprint({
        hashAlgorithm: new pkijs.AlgorithmIdentifier({ algorithmId: OID_SHA256 }),
        hashedMessage: new asn1js.OctetString({ valueHex: imprint }),
      }),
      certReq: true,
    });
    if (nonce) {
      // INTEGER content is two's complement: keep a leading zero when the top bit is set.
      const positive = nonce[0] & 0x80 ? Uint8Array.from([0, ...nonce]) : nonce;
      req.nonce = new asn1js.Integer({ valueHex: positive });
    }
    writeFileSync(p(`req-${n}.tsq`), new Uint8Array(req.toSchema().toBER(false)));
    await openssl(dir, ['ts', '-reply', '-config', 'tsa.cnf', '-section', section, '-queryfile', `req-${n}.tsq`, '-out', `resp-${n}.tsr`]);
    count++;
    return new Uint8Array(readFileSync(p(`resp-${n}.tsr`)));
  }

  const timestamp: TimestampFn = (imprint, nonce) => reply(imprint, nonce);
  const bulkyTimestamp: TimestampFn = (imprint, nonce) => reply(imprint, nonce, 'bulky_tsa');

  function tamperedTimestamp(kind: TimestampTamper): TimestampFn {
    return async (imprint, nonce) => {
      switch (kind) {
        case 'wrong-imprint':
          return reply(new Uint8Array(createHash('sha256').update(imprint).digest()), nonce);
        case 'missing-nonce':
          return reply(imprint, undefined);
        case 'wrong-nonce': {
          const other = Uint8Array.from(nonce);
          other[other.length - 1] ^= 0x01;
          return reply(imprint, other);
        }
        case 'untrusted-tsa':
          return reply(imprint, nonce, 'rogue_tsa');
        case 'rejected': {
          const resp = new pkijs.TimeStampResp({
            status: new pkijs.PKIStatusInfo({ status: 2, statusStrings: [new asn1js.Utf8String({ value: 'policy not accepted' })] }),
          });
          return new Uint8Array(resp.toSchema().toBER(false));
        }
        case 'bad-signature': {
          const good = await reply(imprint, nonce);
          const resp = pkijs.TimeStampResp.fromBER(new Uint8Array(good));
          const signed = new pkijs.SignedData({ schema: resp.timeStampToken!.content });
          const sig = new Uint8Array(signed.signerInfos[0].signature.valueBlock.valueHexView);
          sig[sig.length - 1] ^= 0x01;
          signed.signerInfos[0].signature = new asn1js.OctetString({ valueHex: sig });
          resp.timeStampToken = new pkijs.ContentInfo({ contentType: '1.2.840.113549.1.7.2', content: signed.toSchema(true) });
          return new Uint8Array(resp.toSchema().toBER(false));
        }
      }
    };
  }

  async function issueSigner(opts: { cn: string; email: string; keyType?: 'rsa' | 'ec' }): Promise<TestSigner> {
    const keyType = opts.keyType ?? 'rsa';
    const name = `signer-${serial}`;
    const ext = `${name}.cnf`;
    writeFileSync(
      p(ext),
      `
[ v3_signer ]
basicConstraints = critical, CA:FALSE
keyUsage = critical, digitalSignature, nonRepudiation
extendedKeyUsage = emailProtection
subjectAltName = email:${opts.email}
subjectKeyIdentifier = hash
authorityKeyIdentifier = keyid:always
`,
    );
    await issue(name, `/O=Sello Test/CN=${opts.cn}`, 'issuing', 'v3_signer', ext, keyType);
    await openssl(dir, ['pkcs8', '-topk8', '-nocrypt', '-in', `${name}.key`, '-outform', 'DER', '-out', `${name}.p8`]);
    const pkcs8 = readFileSync(p(`${name}.p8`));
    const algorithm = keyType === 'rsa' ? { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256' } : { name: 'ECDSA', namedCurve: 'P-256' };
    const privateKey = (await webcrypto.subtle.importKey('pkcs8', pkcs8, algorithm, false, ['sign'])) as CryptoKey;
    const certificateDer = der(name);
    return {
      cn: opts.cn,
      email: opts.email,
      certificateDer,
      privateKey,
      chainDer: [certificateDer, issuingCaDer, rootDer],
      certPath: p(`${name}.pem`),
    };
  }

  async function reissueSigner(signer: TestSigner, cn: string): Promise<TestSigner> {
    const keyName = signer.certPath.replace(/^.*\//, '').replace(/\.pem$/, '');
    const name = `signer-${serial}`;
    await openssl(dir, ['req', '-new', '-key', `${keyName}.key`, '-utf8', '-subj', `/O=Sello Test/CN=${cn}`, '-out', `${name}.csr`]);
    await openssl(dir, [
      'x509',
      '-req',
      '-in',
      `${name}.csr`,
      '-CA',
      'issuing.pem',
      '-CAkey',
      'issuing.key',
      '-set_serial',
      String(serial++),
      '-days',
      '1825',
      '-sha256',
      '-extfile',
      `${keyName}.cnf`,
      '-extensions',
      'v3_signer',
      '-out',
      `${name}.pem`,
    ]);
    const certificateDer = der(name);
    return { ...signer, cn, certificateDer, chainDer: [certificateDer, issuingCaDer, rootDer], certPath: p(`${name}.pem`) };
  }

  return {
    dir,
    rootDer,
    reissueSigner,
    rootPath: p('root.pem'),
    issuingCaDer,
    tsaCertPath: p('tsa.pem'),
    rogueRootDer: der('rogue-root'),
    issueSigner,
    timestamp,
    bulkyTimestamp,
    tamperedTimestamp,
    get timestampCount() {
      return count;
    },
    dispose: () => rmSync(dir, { recursive: true, force: true }),
  };
}
