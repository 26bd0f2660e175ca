// Shared steps of the universal rendition tests: a document signed by its signers through the
// signing API, and the independent checks of a PAdES B-LTA file with openssl (the document time
// stamp token against the root, every embedded OCSP response, the CRLs) read out of its DSS.
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { PDF, type PdfArray, type PdfRef, type PdfStream } from '@libpdf/core';
import * as pkijs from 'pkijs';
import { derToPem } from '../../src/pki/index.js';
import { readSignedFields } from '../../src/pdf/signed-fields.js';
import { signaturePng } from './validators.js';
import type { TestServer } from './server.js';

const exec = promisify(execFile);

export async function openssl(args: string[], cwd?: string): Promise<{ code: number; out: string }> {
  try {
    const r = await exec('openssl', args, { cwd, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
    return { code: 0, out: r.stdout + r.stderr };
  } catch (err) {
    const e = err as { code?: number; stdout?: string; stderr?: string };
    return { code: typeof e.code === 'number' ? e.code : 1, out: `${e.stdout ?? ''}${e.stderr ?? ''}` };
  }
}

const box = (page: number, x = 60) => ({ page, rect: { lx: x, ly: 60, tx: x + 200, ty: 130 } });
const drawn = () => ({ signature: { type: 'drawn', image: `data:image/png;base64,${signaturePng().toString('base64')}` }, consent: true });

/** Creates a document for `signers` (names) and has each sign it; returns its ticket. */
export async function signedDocument(s: TestServer, pdfB64: string, signers = ['Ana García', 'Bruno Díaz']): Promise<string> {
  const doc = await s.client.createDocument({
    b64_doc: pdfB64,
    name: 'Contrato',
    stickers: signers.map((name, i) => ({ authority: 'EMAIL_LINK', data: `s${i}@example.com`, name, ...box(0, 40 + i * 5) })),
  });
  const tokens = [...new Set(doc.stickers.map((x) => x.signer_url.split('/').pop()!))];
  for (const token of tokens) {
    const res = await fetch(`${s.baseUrl}/sign/api/${token}/sign`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(drawn()),
    });
    if (res.status !== 200) {
      throw new Error(`signing answered ${res.status}: ${await res.text()}`);
    }
  }
  return doc.document_ticket;
}

/** The DSS arrays of the file (the last DSS revision's). */
export async function dssOf(pdf: Uint8Array): Promise<{ certs: Buffer[]; ocsps: Buffer[]; crls: Buffer[]; vriKeys: string[] }> {
  const doc = await PDF.load(pdf);
  const resolve = (r: PdfRef) => doc.getObject(r);
  const dss = doc.getCatalog().getDict('DSS', resolve);
  const read = (key: string) =>
    ((dss?.getArray(key, resolve) as PdfArray | undefined)?.toArray() ?? []).map((r) => {
      const st = doc.getObject(r as PdfRef) as PdfStream;
      return Buffer.from(st.getDecodedData());
    });
  const vri = dss?.getDict('VRI', resolve);
  return { certs: read('Certs'), ocsps: read('OCSPs'), crls: read('CRLs'), vriKeys: [...(vri?.keys() ?? [])].map((k) => k.value) };
}

/** The token of the last document time stamp and the revision it covers. */
export async function lastDocumentTimestamp(pdf: Uint8Array): Promise<{ token: Buffer; covered: Buffer; fieldName: string }> {
  const fields = (await readSignedFields(pdf)).filter((f) => f.kind === 'document_timestamp');
  return timestampOf(pdf, fields[fields.length - 1]);
}

function timestampOf(
  pdf: Uint8Array,
  last: Awaited<ReturnType<typeof readSignedFields>>[number],
): { token: Buffer; covered: Buffer; fieldName: string } {
  // The /ByteRange covers everything but /Contents: rebuild the covered bytes from the file.
  const text = Buffer.from(pdf).toString('latin1');
  const hex = Buffer.from(last.contents).toString('hex');
  const at = text.toLowerCase().indexOf(hex);
  const open = text.lastIndexOf('<', at);
  const close = text.indexOf('>', at + hex.length);
  const buf = Buffer.from(pdf);
  const covered = Buffer.concat([buf.subarray(0, open), buf.subarray(close + 1, last.coveredLength)]);
  const len = derLength(Buffer.from(last.contents));
  return { token: Buffer.from(last.contents).subarray(0, len), covered, fieldName: last.fieldName };
}

/**
 * Each CAdES signature's own time-stamp token (the signature-time-stamp unsigned attribute, RFC 5126
 * §5.11.3), read with pkijs, and the SHA-256 of the signature value it must cover.
 */
export async function signatureTimestamps(pdf: Uint8Array): Promise<{ fieldName: string; token: Buffer; imprintHex: string }[]> {
  const out: { fieldName: string; token: Buffer; imprintHex: string }[] = [];
  for (const f of (await readSignedFields(pdf)).filter((x) => x.kind !== 'document_timestamp')) {
    const cms = Buffer.from(f.contents).subarray(0, derLength(Buffer.from(f.contents)));
    const info = pkijs.ContentInfo.fromBER(new Uint8Array(cms));
    const signerInfo = new pkijs.SignedData({ schema: info.content }).signerInfos[0];
    const attr = signerInfo.unsignedAttrs?.attributes.find((a) => a.type === '1.2.840.113549.1.9.16.2.14');
    if (!attr) {
      throw new Error(`${f.fieldName} has no signature time stamp`);
    }
    const value = Buffer.from(signerInfo.signature.valueBlock.valueHexView);
    out.push({
      fieldName: f.fieldName,
      token: Buffer.from(attr.values[0].toBER(false)),
      imprintHex: createHash('sha256').update(value).digest('hex'),
    });
  }
  return out;
}

/** Every document time stamp of the file: its token and the bytes its /ByteRange covers. */
export async function documentTimestamps(pdf: Uint8Array): Promise<{ token: Buffer; covered: Buffer; fieldName: string }[]> {
  const fields = (await readSignedFields(pdf)).filter((f) => f.kind === 'document_timestamp');
  return fields.map((f) => timestampOf(pdf, f));
}

function derLength(b: Buffer): number {
  if (b[1] < 0x80) {
    return 2 + b[1];
  }
  const n = b[1] & 0x7f;
  return 2 + n + b.subarray(2, 2 + n).reduce((acc, x) => acc * 256 + x, 0);
}

export interface LtaCheck {
  tsVerify: string;
  ocsp: { status: string; text: string }[];
  crlVerify: string[];
}

/**
 * openssl's view of a B-LTA file, from the file alone: the last document time stamp verified
 * against `rootPem` with the DSS certificates as intermediates, every OCSP response parsed and
 * verified against the root, every CRL's signature checked with the DSS certificates.
 */
export async function opensslLtaCheck(pdf: Uint8Array, rootPem: string, opts: { at?: Date } = {}): Promise<LtaCheck> {
  const attime = opts.at ? ['-attime', String(Math.floor(opts.at.getTime() / 1000))] : [];
  const dir = mkdtempSync(join(tmpdir(), 'sello-lta-'));
  try {
    const dss = await dssOf(pdf);
    const certsPem = dss.certs.map((c) => derToPem(c, 'CERTIFICATE')).join('');
    writeFileSync(join(dir, 'root.pem'), rootPem);
    writeFileSync(join(dir, 'certs.pem'), certsPem);
    const ts = await lastDocumentTimestamp(pdf);
    writeFileSync(join(dir, 'token.der'), ts.token);
    writeFileSync(join(dir, 'covered.bin'), ts.covered);
    const tsVerify = await openssl(
      [
        'ts',
        '-verify',
        '-token_in',
        '-in',
        'token.der',
        '-data',
        'covered.bin',
        '-CAfile',
        'root.pem',
        '-untrusted',
        'certs.pem',
        ...attime,
      ],
      dir,
    );
    const ocsp: LtaCheck['ocsp'] = [];
    for (const [i, der] of dss.ocsps.entries()) {
      writeFileSync(join(dir, `ocsp${i}.der`), der);
      const r = await openssl(
        ['ocsp', '-respin', `ocsp${i}.der`, '-resp_text', '-CAfile', 'root.pem', '-verify_other', 'certs.pem', ...attime],
        dir,
      );
      ocsp.push({ status: /Cert Status: (\w+)/.exec(r.out)?.[1] ?? '', text: r.out });
    }
    const crlVerify: string[] = [];
    for (const [i, der] of dss.crls.entries()) {
      writeFileSync(join(dir, `crl${i}.der`), der);
      writeFileSync(join(dir, 'all.pem'), rootPem + certsPem);
      const r = await openssl(['crl', '-inform', 'DER', '-in', `crl${i}.der`, '-noout', '-CAfile', 'all.pem'], dir);
      crlVerify.push(r.out.trim());
    }
    return { tsVerify: tsVerify.out, ocsp, crlVerify };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** pdfsig run with the machine's clock moved by `offset` (libfaketime, e.g. "+2h"), trusting `rootPem`. */
export async function pdfsigShifted(pdf: Uint8Array, rootPem: string, offset: string): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'sello-pdfsig-'));
  const run = async (cmd: string, args: string[]) => {
    try {
      const r = await exec(cmd, args, { encoding: 'utf8' });
      return r.stdout + r.stderr;
    } catch (err) {
      const e = err as { stdout?: string; stderr?: string };
      return `${e.stdout ?? ''}${e.stderr ?? ''}`;
    }
  };
  try {
    writeFileSync(join(dir, 'root.pem'), rootPem);
    writeFileSync(join(dir, 'doc.pdf'), pdf);
    const nss = `sql:${join(dir, 'nss')}`;
    await run('mkdir', ['-p', join(dir, 'nss')]);
    await run('certutil', ['-N', '-d', nss, '--empty-password']);
    await run('certutil', ['-A', '-d', nss, '-n', 'sello-root', '-t', 'CT,C,C', '-i', join(dir, 'root.pem')]);
    return await run('faketime', ['-f', offset, 'pdfsig', '-no-ocsp', '-nssdir', nss, join(dir, 'doc.pdf')]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * `openssl verify` of one certificate with only what the file's DSS holds: its certificates as
 * intermediates and, with crlCheck, its CRLs for every certificate of the path (no network).
 */
export async function opensslVerifyFromDss(
  pdf: Uint8Array,
  rootPem: string,
  certDer: Uint8Array,
  o: { at: Date; crlCheck: boolean },
): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'sello-lta-'));
  try {
    const dss = await dssOf(pdf);
    writeFileSync(join(dir, 'root.pem'), rootPem);
    writeFileSync(join(dir, 'certs.pem'), dss.certs.map((c) => derToPem(c, 'CERTIFICATE')).join(''));
    writeFileSync(join(dir, 'crls.pem'), dss.crls.map((c) => derToPem(c, 'X509 CRL')).join(''));
    writeFileSync(join(dir, 'leaf.pem'), derToPem(certDer, 'CERTIFICATE'));
    const crl = o.crlCheck ? ['-crl_check_all', '-CRLfile', 'crls.pem'] : [];
    const attime = ['-attime', String(Math.floor(o.at.getTime() / 1000))];
    const r = await openssl(['verify', ...attime, ...crl, '-CAfile', 'root.pem', '-untrusted', 'certs.pem', 'leaf.pem'], dir);
    return r.out.trim();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
