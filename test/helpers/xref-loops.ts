// Cross-reference chains that loop (PDF 32000-1 §7.5.6: each update's trailer names the section
// before it with /Prev): a classic table whose /Prev is itself, an xref stream whose /Prev is
// itself, two updates naming each other, and an update in the middle that loops while the last
// one skips it. A reader that follows /Prev without remembering where it has been never ends.
import { deflateSync } from 'node:zlib';
import { type HandPdf, stream } from './signed-pdfs.js';

export interface XrefLoop {
  name: string;
  bytes: Buffer;
  /** `refused`: the file as it ends cannot be read (a 422); `report`: a report that says what happened. */
  expect: 'refused' | 'report';
}

const EVIL = stream('BT /F1 18 Tf 50 760 Td (Pay 9000 EUR to Eve) Tj ET').toString('latin1');

/** Offset of the cross-reference section the file's last startxref names. */
export function lastXrefOffset(bytes: Buffer): number {
  const m = /startxref\s+(\d+)\s*%%EOF\s*$/.exec(bytes.toString('latin1'));
  if (!m) {
    throw new Error('no startxref at the end of the file');
  }
  return Number(m[1]);
}

const pad = (n: number) => String(n).padStart(10, '0');

/** Appends objects and a classic cross-reference table whose /Prev (10 digits) is prev(its own offset). */
export function tableUpdate(bytes: Buffer, objects: Record<number, string>, size: number, prev: (self: number) => number): Buffer {
  const parts: Buffer[] = [bytes];
  let at = bytes.length;
  let table = 'xref\n';
  for (const [n, body] of Object.entries(objects)) {
    const obj = Buffer.from(`${n} 0 obj\n${body}\nendobj\n`, 'latin1');
    table += `${n} 1\n${pad(at)} 00000 n \n`;
    parts.push(obj);
    at += obj.length;
  }
  table += `trailer\n<< /Size ${size} /Root 1 0 R /Prev ${pad(prev(at))} >>\nstartxref\n${at}\n%%EOF\n`;
  parts.push(Buffer.from(table, 'latin1'));
  return Buffer.concat(parts);
}

/** Appends objects and a cross-reference stream (numbered `xrefNumber`) whose /Prev is prev(its own offset). */
export function xrefStreamUpdate(
  bytes: Buffer,
  objects: Record<number, string>,
  xrefNumber: number,
  prev: (self: number) => number,
): Buffer {
  const parts: Buffer[] = [bytes];
  let at = bytes.length;
  const offsets: [number, number][] = [];
  for (const [n, body] of Object.entries(objects)) {
    const obj = Buffer.from(`${n} 0 obj\n${body}\nendobj\n`, 'latin1');
    offsets.push([Number(n), at]);
    parts.push(obj);
    at += obj.length;
  }
  offsets.push([xrefNumber, at]);
  offsets.sort((x, y) => x[0] - y[0]);
  // W [1 4 1]: type 1 (in use), offset, generation.
  const rows = Buffer.concat(
    offsets.map(([, off]) => {
      const r = Buffer.alloc(6);
      r.writeUInt8(1, 0);
      r.writeUInt32BE(off, 1);
      return r;
    }),
  );
  const data = deflateSync(rows);
  const index = offsets.map(([n]) => `${n} 1`).join(' ');
  parts.push(
    Buffer.from(
      `${xrefNumber} 0 obj\n<< /Type /XRef /Size ${xrefNumber + 1} /W [1 4 1] /Index [${index}] /Root 1 0 R /Prev ${prev(at)} ` +
        `/Filter /FlateDecode /Length ${data.length} >>\nstream\n`,
      'latin1',
    ),
    data,
    Buffer.from(`\nendstream\nendobj\nstartxref\n${at}\n%%EOF\n`, 'latin1'),
  );
  return Buffer.concat(parts);
}

const COURIER = '<< /Type /Font /Subtype /Type1 /BaseFont /Courier >>';

/** The loops, each built on `signed` (a HandPdf whose last revision is a signature). */
export function xrefLoops(signed: HandPdf): XrefLoop[] {
  const base = signed.bytes;
  const signedXref = lastXrefOffset(base);
  // Two updates naming each other: the first's /Prev is patched once the second's offset is known.
  const first = tableUpdate(base, { 4: EVIL }, signed.size, () => 0);
  const both = tableUpdate(first, { 5: COURIER }, signed.size, () => lastXrefOffset(first));
  const at = both.lastIndexOf(`/Prev ${pad(0)}`);
  const cycle = Buffer.from(both);
  cycle.write(`/Prev ${pad(lastXrefOffset(both))}`, at, 'latin1');
  // A middle update that names itself; the last one names the signed revision, skipping it.
  const looping = tableUpdate(base, { 4: EVIL }, signed.size, (self) => self);
  const skipped = tableUpdate(looping, { 5: COURIER }, signed.size, () => signedXref);
  return [
    { name: 'a cross-reference table whose /Prev is itself', bytes: looping, expect: 'refused' },
    {
      name: 'a cross-reference stream whose /Prev is itself',
      bytes: xrefStreamUpdate(base, { 4: EVIL }, signed.size, (self) => self),
      expect: 'refused',
    },
    { name: 'two updates whose /Prev name each other', bytes: cycle, expect: 'refused' },
    { name: 'a middle update that loops, skipped by the last', bytes: skipped, expect: 'report' },
  ];
}
