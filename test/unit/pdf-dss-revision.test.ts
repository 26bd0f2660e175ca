// The DSS revision (pdf/dss-revision.ts): appended, never rewritten; a second one keeps the first's
// streams (referenced again, not copied) and VRI entries, adds only what is new; qpdf finds the file sound.
import { describe, expect, it } from 'vitest';
import { appendDss, vriKey } from '../../src/pdf/dss-revision.js';
import { openPdf } from '../../src/pdf/open-pdf.js';
import { makePdf } from '../helpers/pdfs.js';
import { dssOf } from '../helpers/universal.js';
import { qpdfCheckAsync } from '../helpers/validators.js';

const bytes = (text: string) => Buffer.from(text);

describe('appendDss', () => {
  it('appends a DSS, then merges a second one into it without copying or losing anything', async () => {
    const pdf = await makePdf();
    const sigA = bytes('signature A');
    const sigB = bytes('signature B');
    const doc = await openPdf(pdf);
    await appendDss(doc, {
      vri: [
        { signature: sigA, certificatesDer: [bytes('cert 1'), bytes('cert 2')], ocspsDer: [bytes('ocsp 1')], crlsDer: [bytes('crl 1')] },
      ],
      at: new Date(),
    });
    const first = doc.bytes;
    expect(Buffer.from(first).subarray(0, pdf.length).equals(pdf)).toBe(true);
    // A second step on the same model, reloaded from the first step's bytes.
    await appendDss(doc, {
      vri: [
        { signature: sigB, certificatesDer: [bytes('cert 2'), bytes('cert 3')], ocspsDer: [bytes('ocsp 2')], crlsDer: [bytes('crl 1')] },
      ],
      at: new Date(Date.now() + 3_600_000),
    });
    const second = doc.bytes;
    expect(Buffer.from(second).subarray(0, first.length).equals(Buffer.from(first))).toBe(true);

    const dss = await dssOf(second);
    expect(dss.certs.map(String)).toEqual(['cert 1', 'cert 2', 'cert 3']);
    expect(dss.ocsps.map(String)).toEqual(['ocsp 1', 'ocsp 2']);
    expect(dss.crls.map(String)).toEqual(['crl 1']);
    expect(dss.vriKeys.sort()).toEqual([vriKey(sigA), vriKey(sigB)].sort());
    // The second revision holds only the new streams: "cert 1" is written once in the whole file.
    expect(Buffer.from(second).toString('latin1').split('cert 1').length - 1).toBe(1);
    const check = await qpdfCheckAsync(second);
    expect(check.output).toMatch(/No syntax or stream encoding errors found/);
  });
});
