// Regression tests for the gaps the @libpdf/core probe found (gap 1, placement, is covered with
// the validators in pdf-sign.test.ts), and for the other ways signPdf refuses to sign.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PDF, PdfArray, PdfDict, PdfName, PdfNumber } from '@libpdf/core';
import * as asn1js from 'asn1js';
import * as pkijs from 'pkijs';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { addSignatureTimestamp } from '../../src/pki/cms/index.js';
import { strictRevocationProvider } from '../../src/pdf/revocation-source.js';
import { PdfSignError, signPdf, type SignPdfOptions } from '../../src/pdf/sign-pdf.js';
import { MIN_BOX_SIZE } from '../../src/pdf/signature-widgets.js';
import { createTestPki, type TestPki, type TestSigner, type TimestampTamper } from '../helpers/openssl-pki.js';
import { A4, makePdf, qpdfCheck } from '../helpers/pdfs.js';

let pki: TestPki;
let ana: TestSigner;
let bob: TestSigner;
let T: Date;
let twoPages: Buffer;

function options(extra: Partial<SignPdfOptions> = {}): SignPdfOptions {
  return {
    pdf: twoPages,
    fieldName: 'Sello-ana',
    boxes: [{ page: 0, rect: { lx: 50, ly: 50, tx: 250, ty: 130 } }],
    appearance: { signerName: ana.cn, signedAt: T, authorityLabel: 'Email link: ana@example.com' },
    signer: ana,
    timestamp: pki.timestamp,
    trustedRootsDer: [pki.rootDer],
    now: () => T,
    ...extra,
  };
}

/** The PdfSignError signPdf rejects with (failing the test if it resolves instead). */
async function refusal(opts: SignPdfOptions): Promise<PdfSignError> {
  const err = await signPdf(opts).then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(PdfSignError);
  return err as PdfSignError;
}

beforeAll(async () => {
  pki = await createTestPki();
  ana = await pki.issueSigner({ cn: 'Ana García', email: 'ana@example.com' });
  bob = await pki.issueSigner({ cn: 'Bob Smith', email: 'bob@example.com', keyType: 'ec' });
  T = new Date();
  twoPages = await makePdf([A4, A4]);
}, 60_000);

afterAll(() => pki?.dispose());

describe('gap 2: never a rewrite that breaks earlier signatures', () => {
  // Cut before the cross-reference table: the library only opens it by brute-force recovery.
  const truncated = () => {
    const at = twoPages.lastIndexOf('\nxref\n');
    return twoPages.subarray(0, at + 1);
  };

  it('the library would silently rewrite such a file (what the guard is for)', async () => {
    const pdf = await PDF.load(truncated());
    expect(pdf.canSaveIncrementally()).toBe('brute-force-recovery');
    pdf.getPage(0)!.dict.set('Rotate', PdfNumber.of(0));
    const saved = Buffer.from(await pdf.save({ incremental: true }));
    // Asked for an incremental save, it wrote a new file: the old bytes are not its prefix.
    expect(saved.subarray(0, truncated().length).equals(truncated())).toBe(false);
  });

  it('refuses a PDF that only loads by brute-force recovery with NOT_INCREMENTAL, before asking the TSA', async () => {
    const asked = pki.timestampCount;
    const err = await refusal(options({ pdf: truncated() }));
    expect(err.problem).toBe('NOT_INCREMENTAL');
    expect(err.message).toContain('brute-force-recovery');
    expect(pki.timestampCount).toBe(asked);
  });

  it('refuses a PDF whose certification signature forbids changes (DocMDP P=1)', async () => {
    const pdf = await PDF.load(twoPages);
    const reference = PdfDict.of({
      Type: PdfName.of('SigRef'),
      TransformMethod: PdfName.of('DocMDP'),
      TransformParams: PdfDict.of({ Type: PdfName.of('TransformParams'), P: PdfNumber.of(1), V: PdfName.of('1.2') }),
    });
    const certification = pdf.register(PdfDict.of({ Type: PdfName.of('Sig'), Reference: new PdfArray([reference]) }));
    pdf.getCatalog().set('Perms', PdfDict.of({ DocMDP: certification }));
    const err = await refusal(options({ pdf: await pdf.save() }));
    expect(err.problem).toBe('NOT_INCREMENTAL');
  });

  it('signs a linearized upload incrementally (the library does not block it) and it validates', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sello-lin-'));
    try {
      writeFileSync(join(dir, 'in.pdf'), twoPages);
      execFileSync('qpdf', ['--linearize', join(dir, 'in.pdf'), join(dir, 'lin.pdf')]);
      const linearized = readFileSync(join(dir, 'lin.pdf'));
      const { pdf } = await signPdf(options({ pdf: linearized }));
      expect(pdf.subarray(0, linearized.length).equals(linearized)).toBe(true);
      expect(qpdfCheck(pdf).ok).toBe(true);
      writeFileSync(join(dir, 'out.pdf'), pdf);
      expect(execFileSync('pdfsig', [join(dir, 'out.pdf')], { encoding: 'utf8' })).toContain('Signature Validation: Signature is Valid.');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('file shapes', () => {
  it('signs twice a PDF with object streams and cross-reference streams', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sello-ostm-'));
    try {
      writeFileSync(join(dir, 'in.pdf'), twoPages);
      execFileSync('qpdf', ['--object-streams=generate', join(dir, 'in.pdf'), join(dir, 'ostm.pdf')]);
      const compact = readFileSync(join(dir, 'ostm.pdf'));
      const { pdf: once } = await signPdf(options({ pdf: compact }));
      const { pdf: twice } = await signPdf(
        options({ pdf: once, fieldName: 'Sello-bob', signer: bob, boxes: [{ page: 1, rect: { lx: 50, ly: 50, tx: 250, ty: 130 } }] }),
      );
      expect(twice.subarray(0, once.length).equals(once)).toBe(true);
      expect(qpdfCheck(twice).ok).toBe(true);
      writeFileSync(join(dir, 'out.pdf'), twice);
      const report = execFileSync('pdfsig', [join(dir, 'out.pdf')], { encoding: 'utf8' });
      expect(report.match(/Signature Validation: Signature is Valid\./g)).toHaveLength(2);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('makes room when the time-stamp token is larger than first reserved (one retry)', async () => {
    const asked = pki.timestampCount;
    const { pdf } = await signPdf(options({ timestamp: pki.bulkyTimestamp }));
    expect(pki.timestampCount - asked).toBe(2);
    expect(qpdfCheck(pdf).ok).toBe(true);
  });
});

describe('gap 3: every time-stamp reply is checked before it is embedded', () => {
  const tampers: [TimestampTamper, RegExp][] = [
    ['wrong-imprint', /imprint/],
    ['missing-nonce', /nonce/],
    ['wrong-nonce', /nonce/],
    ['untrusted-tsa', /trusted root/],
    ['rejected', /status 2 \(policy not accepted\)/],
    ['bad-signature', /signature does not verify/],
  ];
  it.each(tampers)('refuses a reply with %s as TIMESTAMP_INVALID', async (kind, reason) => {
    const err = await refusal(options({ timestamp: pki.tamperedTimestamp(kind) }));
    expect(err.problem).toBe('TIMESTAMP_INVALID');
    expect(err.message).toMatch(reason);
  });

  it('refuses a reply that is not a TimeStampResp at all', async () => {
    const err = await refusal(options({ timestamp: async () => new Uint8Array([0x30, 0x03, 0x02, 0x01, 0x00]) }));
    expect(err.problem).toBe('TIMESTAMP_INVALID');
  });

  it('embeds the token byte for byte as the TSA encoded it, and refuses a token that is not one element', async () => {
    let reply: Uint8Array = new Uint8Array(0);
    const { pdf } = await signPdf(options({ timestamp: async (imprint, nonce) => (reply = await pki.timestamp(imprint, nonce)) }));
    // TimeStampResp ::= SEQUENCE { status, timeStampToken }: the token is what follows the status.
    const outer = asn1js.fromBER(new Uint8Array(reply)).result as asn1js.Sequence;
    const token = Buffer.from(outer.valueBlock.value[1].valueBeforeDecodeView);
    expect(token.length).toBeGreaterThan(1000);
    expect(pdf.toString('latin1').includes(token.toString('hex'))).toBe(true);
    const signedData = new pkijs.SignedData({
      version: 1,
      encapContentInfo: new pkijs.EncapsulatedContentInfo({ eContentType: '1.2.840.113549.1.7.1' }),
      signerInfos: [new pkijs.SignerInfo()],
    });
    for (const bad of [Buffer.concat([token, Buffer.from([0])]), token.subarray(0, -1), Buffer.from([0x30, 0x80, 0x00, 0x00])]) {
      expect(() => addSignatureTimestamp(signedData, bad)).toThrow(/not one DER element/);
    }
  });

  it('reports a TSA that does not answer as SIGNING_FAILED, not as an invalid token', async () => {
    const err = await refusal(options({ timestamp: () => Promise.reject(new Error('connection refused')) }));
    expect(err.problem).toBe('SIGNING_FAILED');
    expect(err.message).toContain('connection refused');
  });

  it('asks the TSA about the SHA-256 of the signature value, with a fresh positive nonce each time', async () => {
    const seen: { imprint: Uint8Array; nonce: Uint8Array }[] = [];
    const spy = (imprint: Uint8Array, nonce: Uint8Array) => {
      seen.push({ imprint, nonce });
      return pki.timestamp(imprint, nonce);
    };
    await signPdf(options({ timestamp: spy }));
    await signPdf(options({ timestamp: spy }));
    expect(seen.map((s) => s.imprint.length)).toEqual([32, 32]);
    expect(seen[0].nonce[0]).toBeGreaterThan(0);
    expect(seen[0].nonce[0]).toBeLessThan(0x80);
    expect(Buffer.from(seen[0].nonce).equals(Buffer.from(seen[1].nonce))).toBe(false);
  });
});

describe('gap 4: no silent revocation fetching', () => {
  it('signs B-T without touching the network', async () => {
    const fetchSpy = vi.spyOn(globalThis, 'fetch').mockRejectedValue(new Error('network is not allowed in pdf/'));
    try {
      const { pdf } = await signPdf(options());
      expect(pdf.length).toBeGreaterThan(twoPages.length);
      expect(fetchSpy).not.toHaveBeenCalled();
    } finally {
      fetchSpy.mockRestore();
    }
  });

  it('the LTV revocation provider fails loudly when it has no OCSP source', async () => {
    const { provider, assertComplete } = strictRevocationProvider(undefined);
    expect(await provider.getOCSP!(ana.certificateDer, pki.issuingCaDer)).toBeNull();
    expect(provider.getCRL).toBeUndefined(); // nothing to fall back to behind our back
    expect(() => assertComplete()).toThrow(/revocation data is missing for "Ana García": no OCSP source/);
  });

  it('the LTV revocation provider fails loudly when our responder errs', async () => {
    const { provider, assertComplete } = strictRevocationProvider({ ocsp: () => Promise.reject(new Error('responder down')) });
    await provider.getOCSP!(ana.certificateDer, pki.issuingCaDer);
    expect(() => assertComplete()).toThrow(/responder down/);
  });
});

describe('boxes', () => {
  const box = (page: number, lx: number, ly: number, tx: number, ty: number) => ({ page, rect: { lx, ly, tx, ty } });
  it.each([
    ['no box at all', []],
    ['a page that does not exist', [box(2, 50, 50, 250, 130)]],
    ['a negative page', [box(-1, 50, 50, 250, 130)]],
    ['a box past the right edge', [box(0, 500, 50, 700, 130)]],
    ['a box below the page', [box(0, 50, -10, 250, 30)]],
    ['an inverted box', [box(0, 250, 50, 50, 130)]],
    ['a box smaller than the legend needs', [box(0, 50, 50, 50 + MIN_BOX_SIZE.width - 1, 80)]],
    ['a NaN coordinate', [box(0, Number.NaN, 50, 250, 130)]],
  ])('refuses %s with BOX_INVALID', async (_name, boxes) => {
    const err = await refusal(options({ boxes }));
    expect(err.problem).toBe('BOX_INVALID');
  });
});

describe('signer', () => {
  it('refuses a signer whose chain does not reach a trusted root', async () => {
    const err = await refusal(options({ trustedRootsDer: [pki.rogueRootDer] }));
    expect(err.problem).toBe('SIGNING_FAILED');
    expect(err.message).toContain('trusted root');
  });

  it('refuses to sign while the clock is behind the start of validity of a certificate, naming the clock', async () => {
    const behind = new Date(Date.now() - 3 * 86_400_000); // before the test PKI's certificates were made
    const err = await refusal(options({ now: () => behind }));
    expect(err.problem).toBe('CLOCK_BEHIND');
    expect(err.message).toContain(`the clock says ${behind.toISOString()}`);
    expect(err.message).toMatch(/earlier than the start of validity of .*CN=/);
  });

  it("refuses a key that is not the certificate's", async () => {
    const err = await refusal(options({ signer: { ...ana, privateKey: bob.privateKey } }));
    expect(err.problem).toBe('SIGNING_FAILED');
  });

  it('refuses to sign a field that is already signed', async () => {
    const { pdf } = await signPdf(options());
    const err = await refusal(options({ pdf }));
    expect(err.problem).toBe('SIGNING_FAILED');
    expect(err.message).toContain('already signed');
  });

  it('refuses an image that is not a PNG', async () => {
    const err = await refusal(
      options({ appearance: { signerName: 'x', signedAt: T, authorityLabel: 'y', image: new Uint8Array([1, 2, 3]) } }),
    );
    expect(err.problem).toBe('SIGNING_FAILED');
    expect(err.message).toContain('PNG');
  });

  it('writes the claimed signing time to /M from the injected clock and returns it', async () => {
    const at = new Date(T.getTime() + 1000);
    const result = await signPdf(options({ now: () => at }));
    expect(result.signedAt).toEqual(at);
    const stamp = at.toISOString().replace(/[-:T]/g, '').slice(0, 14);
    expect(result.pdf.toString('latin1')).toContain(`/M (D:${stamp}Z)`);
    expect(result.signatureFieldName).toBe('Sello-ana');
  });
});
