// A test certification authority shaped like the SAT's, made by the openssl CLI:
//   "AC RAIZ SAT PRUEBAS" ── "AC DEL SERVICIO DE ADMINISTRACION TRIBUTARIA PRUEBAS" ─┬─ e.firma (FIEL)
//                                                                                     └─ seal (CSD)
//   a rogue root of the same shape, which nobody trusts.
// Leaf subjects are written as the SAT writes them: CN, name and O the holder's name, the RFC in
// x500UniqueIdentifier (2.5.4.45), the CURP in serialNumber (2.5.4.5); a CSD adds OU (the branch it
// seals for) and has the narrower key usage of a seal (no dataEncipherment, keyAgreement, EKU).
// Serial numbers are 20 ASCII digits, like the SAT's certificate numbers. Each key (.key) is made
// exactly as the SAT delivers it: PKCS#8 encrypted with PBES2, 3DES (des-ede3-cbc) and PBKDF2 with
// HMAC-SHA1, in DER. An OCSP responder (`openssl ocsp`, one run per request) answers from an index
// where certificates can be revoked.
import { execFile } from 'node:child_process';
import { type KeyObject, createPrivateKey } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { type Server, createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

export interface SatCredential {
  /** The .cer file: the certificate in DER. */
  cer: Buffer;
  /** The .key file: encrypted PKCS#8 DER (PBES2, des-ede3-cbc). */
  key: Buffer;
  password: string;
  /** The same key, decrypted, for signing in node. */
  privateKey: KeyObject;
  serialHex: string;
  certificateNumber: string;
}

export interface SatTestPki {
  dir: string;
  rootPem: string;
  /** Root and issuing CA, as an operator installs them (SELLO_SAT_TRUST_PEM). */
  trustPemPath: string;
  issue(opts: {
    rfc: string;
    curp: string;
    name: string;
    kind?: 'FIEL' | 'CSD';
    days?: number;
    /** Issued by the rogue CA instead of the SAT's. */
    rogue?: boolean;
    password?: string;
  }): Promise<SatCredential>;
  revoke(serialHex: string): void;
  /** The root's CRL (DER, nothing revoked), as published at `issuingCrlUrl`. */
  rootCrl(): Promise<Buffer>;
  /** Starts the OCSP responder on a loopback port. */
  ocspResponder(): Promise<{ url: string; requests: number; close(): Promise<void> }>;
  dispose(): void;
}

const EXTENSIONS = `[v3_ca]
basicConstraints = critical, CA:TRUE, pathlen:0
keyUsage = critical, keyCertSign, cRLSign
subjectKeyIdentifier = hash
authorityKeyIdentifier = keyid

[v3_fiel]
basicConstraints = critical, CA:FALSE
keyUsage = critical, digitalSignature, nonRepudiation, dataEncipherment, keyAgreement
extendedKeyUsage = emailProtection, clientAuth
subjectKeyIdentifier = hash
authorityKeyIdentifier = keyid

[v3_csd]
basicConstraints = critical, CA:FALSE
keyUsage = critical, digitalSignature, nonRepudiation
subjectKeyIdentifier = hash
authorityKeyIdentifier = keyid
`;

async function openssl(dir: string, args: string[]): Promise<string> {
  try {
    const { stdout } = await run('openssl', args, { cwd: dir, encoding: 'utf8' });
    return stdout;
  } catch (err) {
    const e = err as { stderr?: string; message: string };
    throw new Error(`openssl ${args.join(' ')} failed: ${e.stderr ?? e.message}`);
  }
}

const caSubject = (cn: string) =>
  `/CN=${cn}/O=SERVICIO DE ADMINISTRACION TRIBUTARIA/OU=SAT-IES Authority/emailAddress=pruebas@example.com` +
  '/street=AV. HIDALGO 77/postalCode=06300/C=MX/ST=CIUDAD DE MEXICO/L=CUAUHTEMOC/x500UniqueIdentifier=SAT970701NN3';

/** The root's CRL, for `openssl ca -gencrl`. */
const ROOT_CA_CONFIG = `[ca]
default_ca = root_ca
[root_ca]
database = root-index.txt
crlnumber = root-crlnumber
default_md = sha256
default_crl_days = 30
`;

/**
 * issuingCrlUrl: where the issuing CA's certificate says its status is published (the root's CRL,
 * see rootCrl()); without it, the issuing CA names no CRL, and its revocation cannot be checked.
 */
export async function createSatTestPki(opts: { issuingCrlUrl?: string } = {}): Promise<SatTestPki> {
  const dir = mkdtempSync(join(tmpdir(), 'sello-sat-pki-'));
  const p = (f: string) => join(dir, f);
  writeFileSync(
    p('ext.cnf'),
    opts.issuingCrlUrl ? EXTENSIONS.replace('[v3_ca]\n', `[v3_ca]\ncrlDistributionPoints = URI:${opts.issuingCrlUrl}\n`) : EXTENSIONS,
  );
  writeFileSync(p('root-ca.cnf'), ROOT_CA_CONFIG);
  writeFileSync(p('root-index.txt'), '');
  writeFileSync(p('root-crlnumber'), '01\n');
  writeFileSync(p('index.txt'), '');
  const index: string[] = [];
  let counter = 1;

  async function root(name: string, cn: string) {
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
      caSubject(cn),
      '-addext',
      'basicConstraints=critical,CA:TRUE',
      '-addext',
      'keyUsage=critical,keyCertSign,cRLSign',
      '-addext',
      'subjectKeyIdentifier=hash',
    ]);
  }
  async function sign(name: string, subject: string, ca: string, ext: string, serial: string, days: number) {
    await openssl(dir, ['genpkey', '-algorithm', 'RSA', '-pkeyopt', 'rsa_keygen_bits:2048', '-out', `${name}.plain.key`]);
    await openssl(dir, ['req', '-new', '-key', `${name}.plain.key`, '-utf8', '-subj', subject, '-out', `${name}.csr`]);
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
      serial,
      '-days',
      String(days),
      '-sha256',
      '-extfile',
      'ext.cnf',
      '-extensions',
      ext,
      '-out',
      `${name}.pem`,
    ]);
  }

  await root('root', 'AC RAIZ SAT PRUEBAS');
  await sign('issuing', caSubject('AC DEL SERVICIO DE ADMINISTRACION TRIBUTARIA PRUEBAS'), 'root', 'v3_ca', '0x01', 3000);
  // openssl wants the CA key under the name the issuing certificate's .pem has
  writeFileSync(p('issuing.key'), readFileSync(p('issuing.plain.key')));
  await root('rogue', 'AC RAIZ SAT PRUEBAS');
  const rootPem = readFileSync(p('root.pem'), 'utf8');
  writeFileSync(p('trust.pem'), rootPem + readFileSync(p('issuing.pem'), 'utf8'));

  return {
    dir,
    rootPem,
    trustPemPath: p('trust.pem'),
    async issue(opts) {
      const number = `30001000000500${String(counter++).padStart(6, '0')}`;
      const serialHex = Buffer.from(number, 'latin1').toString('hex');
      const name = `leaf-${number}`;
      const kind = opts.kind ?? 'FIEL';
      const subject =
        `/CN=${opts.name}/name=${opts.name}/O=${opts.name}/C=MX/emailAddress=firmante@example.com` +
        `${kind === 'CSD' ? '/OU=SUCURSAL 1' : ''}/x500UniqueIdentifier=${opts.rfc}/serialNumber=${opts.curp}`;
      await sign(
        name,
        subject,
        opts.rogue ? 'rogue' : 'issuing',
        kind === 'FIEL' ? 'v3_fiel' : 'v3_csd',
        `0x${serialHex}`,
        opts.days ?? 1460,
      );
      const password = opts.password ?? '12345678a';
      // Exactly as the SAT delivers the key: PKCS#8, PBES2 with 3DES and PBKDF2-HMAC-SHA1, DER.
      await openssl(dir, [
        'pkcs8',
        '-topk8',
        '-v2',
        'des3',
        '-v2prf',
        'hmacWithSHA1',
        '-in',
        `${name}.plain.key`,
        '-outform',
        'DER',
        '-out',
        `${name}.key`,
        '-passout',
        `pass:${password}`,
      ]);
      await openssl(dir, ['x509', '-in', `${name}.pem`, '-outform', 'DER', '-out', `${name}.cer`]);
      index.push(`V\t351231000000Z\t\t${serialHex.toUpperCase()}\tunknown\t/CN=${number}`);
      writeFileSync(p('index.txt'), `${index.join('\n')}\n`);
      const key = readFileSync(p(`${name}.key`));
      return {
        cer: readFileSync(p(`${name}.cer`)),
        key,
        password,
        privateKey: createPrivateKey({ key, format: 'der', type: 'pkcs8', passphrase: password }),
        serialHex,
        certificateNumber: number,
      };
    },
    revoke(serialHex) {
      const at = `${new Date(Date.now() - 3600_000).toISOString().replace(/[-:T]/g, '').slice(2, 14)}Z`;
      for (let i = 0; i < index.length; i++) {
        const cols = index[i].split('\t');
        if (cols[3] === serialHex.toUpperCase()) {
          index[i] = ['R', cols[1], at, cols[3], cols[4], cols[5]].join('\t');
        }
      }
      writeFileSync(p('index.txt'), `${index.join('\n')}\n`);
    },
    async rootCrl() {
      await openssl(dir, ['ca', '-gencrl', '-config', 'root-ca.cnf', '-keyfile', 'root.key', '-cert', 'root.pem', '-out', 'root.crl']);
      await openssl(dir, ['crl', '-in', 'root.crl', '-outform', 'DER', '-out', 'root.crl.der']);
      return readFileSync(p('root.crl.der'));
    },
    async ocspResponder() {
      let n = 0;
      const server: Server = createServer((req, res) => {
        const chunks: Buffer[] = [];
        req.on('data', (c: Buffer) => chunks.push(c));
        req.on('end', () => {
          const id = n++;
          writeFileSync(p(`ocsp-${id}.req`), Buffer.concat(chunks));
          openssl(dir, [
            'ocsp',
            '-index',
            'index.txt',
            '-CA',
            'issuing.pem',
            '-rsigner',
            'issuing.pem',
            '-rkey',
            'issuing.key',
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
            .catch(() => {
              res.writeHead(500);
              res.end();
            });
        });
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      const addr = server.address();
      const port = typeof addr === 'object' && addr ? addr.port : 0;
      return {
        url: `http://127.0.0.1:${port}/ocsp`,
        get requests() {
          return n;
        },
        close: () => new Promise<void>((resolve) => server.close(() => resolve())),
      };
    },
    dispose() {
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
