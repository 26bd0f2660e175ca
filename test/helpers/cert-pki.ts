// A test certification authority for signers' own certificates (authority CERT), made by the
// openssl CLI: "Sello Test Signers CA" issues leaves naming an email (subject emailAddress and a SAN
// rfc822Name), a serialNumber and a uid, whose Authority Information Access names an OCSP responder
// and whose CRL distribution point names a CRL, both served on one loopback port (the OCSP answers
// by `openssl ocsp` from an index where certificates can be revoked; the CRL by `openssl ca -gencrl`).
// A rogue CA of the same name issues certificates nobody trusts. Each leaf comes as PKCS#12 in the
// legacy encodings CAs still issue (node-forge: 3DES with a SHA-1 MAC; `openssl pkcs12 -legacy`:
// RC2-40 certificates, 3DES key, SHA-1 MAC) and as PEM (certificate and encrypted PKCS#8 key).
// A leaf's key is RSA by default, or ECDSA on P-256 or P-384, an RSASSA-PSS key (id-RSASSA-PSS), or
// Ed25519 (which the service does not sign with).
import { execFile } from 'node:child_process';
import { type KeyObject, createPrivateKey } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { type Server, createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import forge from 'node-forge';

const run = promisify(execFile);

export interface CertCredential {
  /** The certificate, DER. */
  der: Buffer;
  certPem: string;
  /** PKCS#12 by node-forge: key and certificates under 3DES, SHA-1 MAC (forge writes RSA keys only: another key's is OpenSSL 3's default, AES-256 and a SHA-256 MAC). */
  p12Forge: Buffer;
  /** PKCS#12 by `openssl pkcs12 -export -legacy`: RC2-40 certificates, 3DES key, SHA-1 MAC. */
  p12Legacy: Buffer;
  /** The key as encrypted PKCS#8 PEM. */
  keyPem: string;
  password: string;
  privateKey: KeyObject;
  serialHex: string;
}

export interface CertTestPki {
  dir: string;
  rootPem: string;
  /** The CA certificate, as an operator installs it (SELLO_CERT_TRUST_PEM). */
  trustPemPath: string;
  /** Where the OCSP responder and the CRL are served. */
  baseUrl: string;
  /** OCSP requests answered so far. */
  readonly ocspRequests: number;
  issue(opts: {
    name: string;
    email: string;
    serialNumber?: string;
    uid?: string;
    days?: number;
    rogue?: boolean;
    /** keyUsage of the leaf; default digitalSignature, nonRepudiation. */
    keyUsage?: string;
    /** The leaf's key; default RSA 2048. */
    key?: LeafKey;
    password?: string;
  }): Promise<CertCredential>;
  revoke(serialHex: string): Promise<void>;
  close(): Promise<void>;
}

export type LeafKey = 'rsa' | 'ec-p256' | 'ec-p384' | 'rsa-pss' | 'ed25519';

const GENPKEY: Record<LeafKey, string[]> = {
  rsa: ['-algorithm', 'RSA', '-pkeyopt', 'rsa_keygen_bits:2048'],
  'ec-p256': ['-algorithm', 'EC', '-pkeyopt', 'ec_paramgen_curve:P-256', '-pkeyopt', 'ec_param_enc:named_curve'],
  'ec-p384': ['-algorithm', 'EC', '-pkeyopt', 'ec_paramgen_curve:P-384', '-pkeyopt', 'ec_param_enc:named_curve'],
  'rsa-pss': ['-algorithm', 'RSA-PSS', '-pkeyopt', 'rsa_keygen_bits:2048'],
  ed25519: ['-algorithm', 'ED25519'],
};

async function openssl(dir: string, args: string[]): Promise<string> {
  try {
    const { stdout } = await run('openssl', args, { cwd: dir, encoding: 'utf8' });
    return stdout;
  } catch (err) {
    const e = err as { stderr?: string; message: string };
    throw new Error(`openssl ${args.join(' ')} failed: ${e.stderr ?? e.message}`);
  }
}

const CA_CONFIG = `[ca]
default_ca = test_ca
[test_ca]
database = index.txt
crlnumber = crlnumber
default_md = sha256
default_crl_days = 30
`;

export async function createCertTestPki(): Promise<CertTestPki> {
  const dir = mkdtempSync(join(tmpdir(), 'sello-cert-pki-'));
  const p = (f: string) => join(dir, f);
  writeFileSync(p('ca.cnf'), CA_CONFIG);
  writeFileSync(p('index.txt'), '');
  writeFileSync(p('crlnumber'), '01\n');
  let ocspRequests = 0;
  let counter = 1;

  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const fail = () => {
        res.writeHead(500);
        res.end();
      };
      if (req.method === 'GET' && req.url === '/ca.crl') {
        openssl(dir, ['ca', '-gencrl', '-config', 'ca.cnf', '-keyfile', 'ca.key', '-cert', 'ca.pem', '-out', 'ca.crl'])
          .then(() => openssl(dir, ['crl', '-in', 'ca.crl', '-outform', 'DER', '-out', 'ca.crl.der']))
          .then(() => {
            res.writeHead(200, { 'content-type': 'application/pkix-crl' });
            res.end(readFileSync(p('ca.crl.der')));
          })
          .catch(fail);
        return;
      }
      const id = ocspRequests++;
      writeFileSync(p(`ocsp-${id}.req`), Buffer.concat(chunks));
      openssl(dir, [
        'ocsp',
        '-index',
        'index.txt',
        '-CA',
        'ca.pem',
        '-rsigner',
        'ca.pem',
        '-rkey',
        'ca.key',
        '-reqin',
        `ocsp-${id}.req`,
        '-respout',
        `ocsp-${id}.resp`,
        '-ndays',
        '1',
      ])
        .then(() => {
          res.writeHead(200, { 'content-type': 'application/ocsp-response' });
          res.end(readFileSync(p(`ocsp-${id}.resp`)));
        })
        .catch(fail);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const addr = server.address();
  const baseUrl = `http://127.0.0.1:${typeof addr === 'object' && addr ? addr.port : 0}`;

  const ext = (keyUsage: string) => `[leaf]
basicConstraints = critical, CA:FALSE
keyUsage = critical, ${keyUsage}
extendedKeyUsage = emailProtection, clientAuth
subjectKeyIdentifier = hash
authorityKeyIdentifier = keyid
authorityInfoAccess = OCSP;URI:${baseUrl}/ocsp
crlDistributionPoints = URI:${baseUrl}/ca.crl
subjectAltName = email:copy
`;
  const root = async (name: string) =>
    openssl(dir, [
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
      '-subj',
      '/C=ES/O=Sello Test Trust Services/CN=Sello Test Signers CA',
      '-addext',
      'basicConstraints=critical,CA:TRUE',
      '-addext',
      'keyUsage=critical,keyCertSign,cRLSign,digitalSignature',
      '-addext',
      'subjectKeyIdentifier=hash',
    ]);
  await root('ca');
  await root('rogue');
  const rootPem = readFileSync(p('ca.pem'), 'utf8');
  writeFileSync(p('trust.pem'), rootPem);
  const index: string[] = [];

  return {
    dir,
    rootPem,
    trustPemPath: p('trust.pem'),
    baseUrl,
    get ocspRequests() {
      return ocspRequests;
    },
    async issue(o) {
      const n = counter++;
      const serialHex = `5e11${String(n).padStart(4, '0')}`;
      const name = `leaf-${n}`;
      const password = o.password ?? 'secreto-123';
      writeFileSync(p(`${name}.cnf`), ext(o.keyUsage ?? 'digitalSignature, nonRepudiation'));
      const subject =
        `/C=ES/CN=${o.name}/emailAddress=${o.email}` +
        (o.serialNumber ? `/serialNumber=${o.serialNumber}` : '') +
        (o.uid ? `/UID=${o.uid}` : '');
      const keyKind = o.key ?? 'rsa';
      await openssl(dir, ['genpkey', ...GENPKEY[keyKind], '-out', `${name}.plain.key`]);
      await openssl(dir, ['req', '-new', '-key', `${name}.plain.key`, '-utf8', '-subj', subject, '-out', `${name}.csr`]);
      const ca = o.rogue ? 'rogue' : 'ca';
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
        `0x${serialHex}`,
        '-days',
        String(o.days ?? 730),
        '-sha256',
        '-extfile',
        `${name}.cnf`,
        '-extensions',
        'leaf',
        '-out',
        `${name}.pem`,
      ]);
      await openssl(dir, ['x509', '-in', `${name}.pem`, '-outform', 'DER', '-out', `${name}.der`]);
      await openssl(dir, [
        'pkcs12',
        '-export',
        '-legacy',
        '-in',
        `${name}.pem`,
        '-inkey',
        `${name}.plain.key`,
        '-certfile',
        `${ca}.pem`,
        '-out',
        `${name}.p12`,
        '-passout',
        `pass:${password}`,
      ]);
      await openssl(dir, [
        'pkcs8',
        '-topk8',
        '-v2',
        'aes-256-cbc',
        '-in',
        `${name}.plain.key`,
        '-out',
        `${name}.enc.key`,
        '-passout',
        `pass:${password}`,
      ]);
      const certPem = readFileSync(p(`${name}.pem`), 'utf8');
      const keyPlain = readFileSync(p(`${name}.plain.key`), 'utf8');
      let p12Forge: Buffer;
      if (keyKind === 'rsa') {
        const p12 = forge.pkcs12.toPkcs12Asn1(
          forge.pki.privateKeyFromPem(keyPlain),
          [forge.pki.certificateFromPem(certPem), forge.pki.certificateFromPem(readFileSync(p(`${ca}.pem`), 'utf8'))],
          password,
          { algorithm: '3des' },
        );
        p12Forge = Buffer.from(forge.asn1.toDer(p12).getBytes(), 'binary');
      } else {
        const args = ['-in', `${name}.pem`, '-inkey', `${name}.plain.key`, '-certfile', `${ca}.pem`, '-passout', `pass:${password}`];
        await openssl(dir, ['pkcs12', '-export', ...args, '-out', `${name}.modern.p12`]);
        p12Forge = readFileSync(p(`${name}.modern.p12`));
      }
      if (!o.rogue) {
        index.push(`V\t351231000000Z\t\t${serialHex.toUpperCase()}\tunknown\t/CN=${name}`);
        writeFileSync(p('index.txt'), `${index.join('\n')}\n`);
      }
      return {
        der: readFileSync(p(`${name}.der`)),
        certPem,
        p12Forge,
        p12Legacy: readFileSync(p(`${name}.p12`)),
        keyPem: readFileSync(p(`${name}.enc.key`), 'utf8'),
        password,
        privateKey: createPrivateKey(keyPlain),
        serialHex,
      };
    },
    async revoke(serialHex) {
      // Revoked an hour before now, in the index both the OCSP responder and the CRL read.
      const at = `${new Date(Date.now() - 3600_000).toISOString().replace(/[-:T]/g, '').slice(2, 14)}Z`;
      for (let i = 0; i < index.length; i++) {
        const cols = index[i].split('\t');
        if (cols[3] === serialHex.toUpperCase()) {
          index[i] = ['R', cols[1], at, cols[3], cols[4], cols[5]].join('\t');
        }
      }
      writeFileSync(p('index.txt'), `${index.join('\n')}\n`);
    },
    close: async () => {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
