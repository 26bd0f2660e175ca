// Signed PDFs written byte by byte for the verifier's tests: a small classic PDF (catalog, page
// tree, one page, its content, a font, a form with a text field), then incremental updates and
// signatures appended by hand, so that every published attack on PDF signatures can be built
// exactly: a byte range moved, a revision appended, an object pointed elsewhere. The CMS is made
// by the service's own CAdES code with a signer of the openssl test PKI (openssl-pki.ts).
import { randomNonce } from '../../src/pki/tsa-request.js';
import { createHash } from 'node:crypto';
import * as asn1js from 'asn1js';
import * as pkijs from 'pkijs';
import { addSignatureTimestamp, createCadesSignature, encodeCms } from '../../src/pki/cms/index.js';
import { timeStampTokenFromReply } from '../../src/pki/tsa-verify.js';
import type { TestPki, TestSigner } from './openssl-pki.js';

const CONTENT = 'BT /F1 18 Tf 50 760 Td (Pay 100 EUR to Ana) Tj ET';
export const CONTENTS_SIZE = 24_000; // hex digits reserved for a CMS with a chain and a time stamp

export interface SignOptions {
  signer: TestSigner;
  field: string;
  /** Reuse this prepared (unsigned) signature field instead of adding one. */
  preparedField?: number;
  /** Widget rectangle on page 1; default an invisible [0 0 0 0]. */
  rect?: [number, number, number, number];
  /** Make this a certification signature with /P 1, 2 or 3. */
  docMdp?: 1 | 2 | 3;
  subFilter?: string;
  /** Add an RFC 3161 signature time stamp from the test TSA. */
  timestamp?: boolean;
  /** The digest the CMS signs instead of the real one (a messageDigest mismatch). */
  wrongDigest?: boolean;
  /** Present this other signer's certificate as the signer's (its key did not sign). */
  presentAs?: TestSigner;
  /** Extra raw text inside the signature dictionary. */
  extraSigDict?: string;
  /** Write /Contents before /ByteRange (then the /ByteRange lies in the second signed part). */
  contentsFirst?: boolean;
  /** The /Contents hex as written, and no CMS put in it (an empty or forged signature). */
  rawContents?: string;
  /** Extra raw text in the new signature field (room for later byte-level edits). */
  extraField?: string;
  /** Put content inside the CMS (it is then not detached). */
  encapsulate?: Uint8Array;
  /** adbe.pkcs7.sha1 as its writers make it: the SHA-1 of the signed bytes encapsulated and signed. */
  encapsulateSha1?: boolean;
  /** A second SignerInfo in the CMS (a copy of the first). */
  twoSigners?: boolean;
  /** Hex digits reserved for /Contents; default CONTENTS_SIZE. */
  contentsSize?: number;
  /** Rewrites the finished CMS before it goes into /Contents (another encoding, another algorithm). */
  rewriteCms?: (cms: Uint8Array) => Uint8Array | Promise<Uint8Array>;
  /** A document time stamp (/Type /DocTimeStamp, ETSI.RFC3161): the token over SHA-256 of the signed bytes. */
  documentTimestamp?: (digest: Buffer) => Promise<Uint8Array>;
  /** For a prepared field: its /AP in the signing revision (a new appearance given with the signature). */
  appearance?: string;
  /** More objects written in the signing revision (an appearance stream rewritten in place). */
  alsoWrite?: Record<number, string | Buffer>;
  /** Extra raw text in the signing revision's trailer. */
  trailerExtra?: string;
}

/** A PDF and the current text of each of its objects, growing by incremental updates. */
export class HandPdf {
  bytes: Buffer;
  objects = new Map<number, string | Buffer>();
  private lastXref = 0;

  private constructor(bytes: Buffer) {
    this.bytes = bytes;
  }

  get size(): number {
    return Math.max(0, ...this.objects.keys()) + 1;
  }

  /** Objects 1 catalog, 2 pages, 3 page, 4 content, 5 font, 6 form, 7 text field "name"; plus extras from 8 on. */
  static base(extra: (string | Buffer)[] = [], page = '') {
    const pdf = new HandPdf(Buffer.alloc(0));
    const objects: (string | Buffer)[] = [
      '<< /Type /Catalog /Pages 2 0 R /AcroForm 6 0 R >>',
      '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
      `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Resources << /Font << /F1 5 0 R >> >> /Contents 4 0 R /Annots [7 0 R] ${page}>>`,
      stream(CONTENT),
      '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>',
      '<< /Fields [7 0 R] /DA (/Helv 0 Tf 0 g) >>',
      '<< /FT /Tx /T (name) /Type /Annot /Subtype /Widget /Rect [50 600 250 620] /P 3 0 R /F 4 >>',
      ...extra,
    ];
    for (const [i, o] of objects.entries()) {
      pdf.objects.set(i + 1, o);
    }
    pdf.bytes = Buffer.from('%PDF-1.7\n%\xe2\xe3\xcf\xd3\n', 'latin1');
    pdf.write(new Map(objects.map((o, i) => [i + 1, o])));
    return pdf;
  }

  clone(): HandPdf {
    const copy = new HandPdf(Buffer.from(this.bytes));
    copy.objects = new Map(this.objects);
    copy.lastXref = this.lastXref;
    return copy;
  }

  /** Appends one revision: the given objects (null frees one), an xref table and a trailer. */
  update(changes: Record<number, string | Buffer | null>, trailerExtra = ''): this {
    const map = new Map<number, string | Buffer | null>(Object.entries(changes).map(([k, v]) => [Number(k), v]));
    for (const [n, v] of map) {
      if (v === null) {
        this.objects.delete(n);
      } else {
        this.objects.set(n, v);
      }
    }
    this.write(map, trailerExtra);
    return this;
  }

  private write(changes: Map<number, string | Buffer | null>, trailerExtra = ''): void {
    const parts: Buffer[] = [this.bytes];
    let at = this.bytes.length;
    const offsets = new Map<number, number | null>();
    for (const [n, body] of [...changes].sort((a, b) => a[0] - b[0])) {
      if (body === null) {
        offsets.set(n, null);
        continue;
      }
      const obj = Buffer.concat([Buffer.from(`${n} 0 obj\n`), Buffer.from(body as string, 'latin1'), Buffer.from('\nendobj\n')]);
      offsets.set(n, at);
      parts.push(obj);
      at += obj.length;
    }
    const first = this.lastXref === 0;
    let table = 'xref\n';
    if (first) {
      table += `0 ${this.size}\n0000000000 65535 f \n`;
      for (let n = 1; n < this.size; n++) {
        table += `${String(offsets.get(n) ?? 0).padStart(10, '0')} 00000 n \n`;
      }
    } else {
      for (const [n, off] of [...offsets].sort((a, b) => a[0] - b[0])) {
        table += `${n} 1\n${off === null ? '0000000000 00001 f ' : `${String(off).padStart(10, '0')} 00000 n `}\n`;
      }
    }
    const prev = first ? '' : `/Prev ${this.lastXref} `;
    table += `trailer\n<< /Size ${this.size} /Root 1 0 R ${prev}${trailerExtra}>>\nstartxref\n${at}\n%%EOF\n`;
    parts.push(Buffer.from(table, 'latin1'));
    this.lastXref = at;
    this.bytes = Buffer.concat(parts);
  }

  /** Text of object n with `from` replaced by `to` (for updates that change one key). */
  edit(n: number, from: string | RegExp, to: string): string {
    const body = String(this.objects.get(n));
    const next = body.replace(from, to);
    if (next === body) {
      throw new Error(`object ${n} has no ${from}`);
    }
    return next;
  }

  /** Adds a signature revision: the signature dictionary, its field and widget, the form and page entries. */
  async sign(pki: TestPki, opts: SignOptions): Promise<this> {
    const sigNum = this.size;
    const fieldNum = opts.preparedField ?? sigNum + 1;
    const rect = (opts.rect ?? [0, 0, 0, 0]).join(' ');
    const mdp = opts.docMdp
      ? `/Reference [<< /Type /SigRef /TransformMethod /DocMDP /TransformParams << /Type /TransformParams /P ${opts.docMdp} /V /1.2 >> >>] `
      : '';
    const contents = `/Contents <${opts.rawContents ?? '0'.repeat(opts.contentsSize ?? CONTENTS_SIZE)}>`;
    const range = '/ByteRange [0 0000000000 0000000000 0000000000]';
    const type = opts.documentTimestamp ? 'DocTimeStamp' : 'Sig';
    const subFilter = opts.subFilter ?? (opts.documentTimestamp ? 'ETSI.RFC3161' : 'ETSI.CAdES.detached');
    const sig =
      `<< /Type /${type} /Filter /Adobe.PPKLite /SubFilter /${subFilter} ` +
      `/M (D:20261123100000Z) ${mdp}${opts.extraSigDict ?? ''}` +
      (opts.contentsFirst ? `${contents} ${range} >>` : `${range} ${contents} >>`);
    const changes: Record<number, string | Buffer> = { ...opts.alsoWrite, [sigNum]: sig };
    if (opts.preparedField) {
      const field = this.edit(fieldNum, /\/FT \/Sig/, `/FT /Sig /V ${sigNum} 0 R`);
      changes[fieldNum] = opts.appearance ? field.replace(/\/AP (\d+ 0 R|<<[^>]*>>)/, `/AP ${opts.appearance}`) : field;
    } else {
      changes[fieldNum] =
        `<< /FT /Sig /T (${opts.field}) /V ${sigNum} 0 R /Type /Annot /Subtype /Widget /Rect [${rect}] /P 3 0 R /F 132 ${opts.extraField ?? ''}>>`;
      changes[6] = this.edit(6, /\/Fields \[/, `/Fields [${fieldNum} 0 R `)
        .replace(/\/SigFlags \d+ /, '')
        .replace('<<', '<< /SigFlags 3 ');
      changes[3] = this.edit(3, /\/Annots \[/, `/Annots [${fieldNum} 0 R `);
    }
    if (opts.docMdp) {
      changes[1] = this.edit(1, /^<</, `<< /Perms << /DocMDP ${sigNum} 0 R >>`);
    }
    this.update(changes, opts.trailerExtra);
    await this.fillSignature(pki, opts);
    return this;
  }

  /** Computes the /ByteRange of the last signature dictionary written and puts the CMS in it. */
  private async fillSignature(pki: TestPki, opts: SignOptions): Promise<void> {
    const text = this.bytes.toString('latin1');
    const brAt = text.lastIndexOf('/ByteRange [0 0000000000 0000000000 0000000000]');
    const a = (opts.contentsFirst ? text.lastIndexOf('/Contents <', brAt) : text.indexOf('/Contents <', brAt)) + '/Contents '.length;
    const b = text.indexOf('>', a) + 1;
    const c = this.bytes.length - b;
    const br = `/ByteRange [0 ${pad(a)} ${pad(b)} ${pad(c)}]`;
    this.bytes.write(br, brAt, 'latin1');
    if (opts.rawContents !== undefined) {
      return;
    }
    const signed = Buffer.concat([this.bytes.subarray(0, a), this.bytes.subarray(b)]);
    const digest = createHash('sha256').update(signed).digest();
    if (opts.documentTimestamp) {
      const token = await opts.documentTimestamp(digest);
      this.bytes.write(Buffer.from(token).toString('hex').padEnd(CONTENTS_SIZE, '0'), a + 1, 'latin1');
      return;
    }
    const sha1 = opts.encapsulateSha1 ? createHash('sha1').update(signed).digest() : null;
    // With encapsulated content, the messageDigest is of that content (RFC 5652 §5.4).
    const signedDigest = sha1 ? createHash('sha256').update(sha1).digest() : digest;
    const cms = await makeCms(
      pki,
      { ...opts, encapsulate: sha1 ?? opts.encapsulate },
      opts.wrongDigest ? createHash('sha256').update('other').digest() : signedDigest,
    );
    const written = opts.rewriteCms ? await opts.rewriteCms(cms) : cms;
    this.bytes.write(
      Buffer.from(written)
        .toString('hex')
        .padEnd(opts.contentsSize ?? CONTENTS_SIZE, '0'),
      a + 1,
      'latin1',
    );
  }
}

const pad = (n: number) => String(n).padStart(10, '0');

export function stream(content: string | Buffer, dict = ''): Buffer {
  const data = Buffer.from(content as string, 'latin1');
  return Buffer.concat([Buffer.from(`<< /Length ${data.length} ${dict}>>\nstream\n`), data, Buffer.from('\nendstream')]);
}

/** The CAdES CMS over `digest`, optionally with a time stamp, or presented under another certificate. */
export async function makeCms(pki: TestPki, opts: SignOptions, digest: Uint8Array): Promise<Uint8Array> {
  const { signedData, signatureValue } = await createCadesSignature({
    signer: opts.signer,
    contentDigest: digest,
    trustedRootsDer: [pki.rootDer],
    at: new Date(),
  });
  if (opts.timestamp) {
    const imprint = createHash('sha256').update(signatureValue).digest();
    addSignatureTimestamp(signedData, timeStampTokenFromReply(await pki.timestamp(imprint, randomNonce())));
  }
  if (opts.encapsulate) {
    signedData.encapContentInfo.eContent = new asn1js.OctetString({ valueHex: opts.encapsulate });
  }
  if (opts.twoSigners) {
    signedData.signerInfos.push(signedData.signerInfos[0]);
  }
  if (opts.presentAs) {
    const other = pkijs.Certificate.fromBER(new Uint8Array(opts.presentAs.certificateDer));
    signedData.certificates = [other, ...(signedData.certificates ?? []).slice(1)];
    signedData.signerInfos[0].sid = new pkijs.IssuerAndSerialNumber({ issuer: other.issuer, serialNumber: other.serialNumber });
  }
  return encodeCms(signedData);
}
