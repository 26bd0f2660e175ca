// Hostile and damaged PDFs, built in code for the tests: the constructions an attack test sent to
// the running service that hung it or exhausted its memory (a stray ")" or "}" inside an array or
// dictionary of the page tree, deep nesting, page-tree cycles, a huge /Count, Flate bombs in an
// object stream and a cross-reference stream), files whose cross-reference table needs rebuilding,
// truncated files, and random byte mutations of a valid PDF with a fixed seed.
import { deflateRawSync, deflateSync, constants as zc } from 'node:zlib';

export interface HostilePdf {
  name: string;
  bytes: Buffer;
  /**
   * `refused`: must answer 422. `damaged`: must answer 422, and qpdf must have to repair it too.
   * `either`: 422, or 200 when qpdf --check finds it sound.
   */
  expect: 'refused' | 'damaged' | 'either';
  /** qpdf --check would inflate the bomb itself: the tests skip it for these. */
  bomb?: boolean;
}

/** A classic PDF (header, objects, xref table, trailer) with correct offsets: objects numbered from 1. */
export function classicPdf(objects: (string | Buffer)[], trailerExtra = ''): Buffer {
  const parts: Buffer[] = [Buffer.from('%PDF-1.7\n%\xe2\xe3\xcf\xd3\n', 'latin1')];
  const offsets: number[] = [];
  let at = parts[0].length;
  objects.forEach((body, i) => {
    const obj = Buffer.concat([
      Buffer.from(`${i + 1} 0 obj\n`, 'latin1'),
      Buffer.from(body as string, 'latin1'),
      Buffer.from('\nendobj\n'),
    ]);
    offsets.push(at);
    parts.push(obj);
    at += obj.length;
  });
  const rows = [`0000000000 65535 f \n`, ...offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n \n`)];
  parts.push(
    Buffer.from(
      `xref\n0 ${objects.length + 1}\n${rows.join('')}trailer\n<< /Size ${objects.length + 1} /Root 1 0 R ${trailerExtra}>>\nstartxref\n${at}\n%%EOF\n`,
      'latin1',
    ),
  );
  return Buffer.concat(parts);
}

const CONTENT = 'BT /F1 18 Tf 50 760 Td (Sello hostile corpus) Tj ET';
const FONT = '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>';

/** One A4 page, valid: objects 1 catalog, 2 pages, 3 page, 4 content, 5 font. Parts may be replaced. */
export function onePagePdf(
  over: { catalog?: string; pages?: string; page?: string; extra?: string[]; trailerExtra?: string } = {},
): Buffer {
  return classicPdf(
    [
      over.catalog ?? '<< /Type /Catalog /Pages 2 0 R >>',
      over.pages ?? '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
      over.page ?? '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Resources << /Font << /F1 5 0 R >> >> /Contents 4 0 R >>',
      `<< /Length ${CONTENT.length} >>\nstream\n${CONTENT}\nendstream`,
      FONT,
      ...(over.extra ?? []),
    ],
    over.trailerExtra,
  );
}

/** zlib data that inflates to `prefix` followed by `repeat` MiB of `fill`, built without holding the output. */
export function zlibBomb(prefix: Buffer, repeatMiB: number, fill = 0x20): Buffer {
  // Each part is a raw deflate run ended by a full flush: byte-aligned, no back-reference into what
  // came before, so the same compressed MiB can be repeated and the whole stays one valid stream.
  const flushed = (b: Buffer) => deflateRawSync(b, { level: 9, finishFlush: zc.Z_FULL_FLUSH });
  const mib = flushed(Buffer.alloc(1024 * 1024, fill));
  const parts = [Buffer.from([0x78, 0xda]), flushed(prefix)];
  for (let i = 0; i < repeatMiB; i++) {
    parts.push(mib);
  }
  parts.push(deflateRawSync(Buffer.alloc(0)));
  // Adler-32 (RFC 1950) of prefix + n bytes of `fill`, in closed form for the repeated part.
  const MOD = 65521n;
  let a = 1n;
  let b = 0n;
  for (const byte of prefix) {
    a = (a + BigInt(byte)) % MOD;
    b = (b + a) % MOD;
  }
  const n = BigInt(repeatMiB) * 1048576n;
  const c = BigInt(fill);
  b = (b + n * a + (c * n * (n + 1n)) / 2n) % MOD;
  a = (a + n * c) % MOD;
  const sum = Buffer.alloc(4);
  sum.writeUInt32BE(Number((b << 16n) | a));
  parts.push(sum);
  return Buffer.concat(parts);
}

/**
 * A PDF 1.5 file whose catalog, page tree and page sit in an object stream (object 4) encoded as
 * `filter` says (`encode` gives its data from the decoded objects), indexed by a cross-reference
 * stream (object 5), uncompressed unless `xref` says how to encode its rows. Both streams are
 * decoded while the file loads.
 */
export function objStmPdf(
  filter: string,
  encode: (decoded: Buffer) => Buffer,
  xref?: { filter: string; encode: (rows: Buffer) => Buffer },
): Buffer {
  const objs = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] >>',
  ];
  let body = '';
  const idx: string[] = [];
  objs.forEach((o, i) => {
    idx.push(`${i + 1} ${body.length}`);
    body += `${o}\n`;
  });
  const header = `${idx.join(' ')}\n`;
  const data = encode(Buffer.from(header + body, 'latin1'));
  const head = Buffer.from('%PDF-1.7\n%\xe2\xe3\xcf\xd3\n', 'latin1');
  const obj4 = Buffer.concat([
    Buffer.from(`4 0 obj\n<< /Type /ObjStm /N 3 /First ${header.length} /Filter ${filter} /Length ${data.length} >>\nstream\n`),
    data,
    Buffer.from('\nendstream\nendobj\n'),
  ]);
  const xrefAt = head.length + obj4.length;
  // W [1 4 2]: type, offset or object stream number, generation or index.
  const row = (t: number, f2: number, f3: number) => {
    const r = Buffer.alloc(7);
    r.writeUInt8(t, 0);
    r.writeUInt32BE(f2, 1);
    r.writeUInt16BE(f3, 5);
    return r;
  };
  const rows = Buffer.concat([row(0, 0, 65535), row(2, 4, 0), row(2, 4, 1), row(2, 4, 2), row(1, head.length, 0), row(1, xrefAt, 0)]);
  const xrefData = xref ? xref.encode(rows) : rows;
  const xrefFilter = xref ? `/Filter ${xref.filter} ` : '';
  const obj5 = Buffer.concat([
    Buffer.from(`5 0 obj\n<< /Type /XRef /Size 6 /W [1 4 2] /Root 1 0 R ${xrefFilter}/Length ${xrefData.length} >>\nstream\n`),
    xrefData,
    Buffer.from('\nendstream\nendobj\n'),
  ]);
  return Buffer.concat([head, obj4, obj5, Buffer.from(`startxref\n${xrefAt}\n%%EOF\n`)]);
}

/**
 * `objStmPdf` with both streams Flate-encoded. `objStmTail` / `xrefTail` MiB of padding inflate
 * after the real data of either stream: the parser inflates both whole while loading.
 */
export function compressedPdf(opts: { objStmTailMiB?: number; xrefTailMiB?: number } = {}): Buffer {
  const { objStmTailMiB, xrefTailMiB } = opts;
  return objStmPdf('/FlateDecode', (d) => (objStmTailMiB ? zlibBomb(d, objStmTailMiB) : deflateSync(d)), {
    filter: '/FlateDecode',
    encode: (rows) => (xrefTailMiB ? zlibBomb(rows, xrefTailMiB, 0) : deflateSync(rows)),
  });
}

/** mulberry32: a small seeded generator, so the mutants are the same on every run. */
function seeded(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** `count` copies of `base`, each with 1 to 4 bytes replaced at random (fixed seed). */
export function mutants(base: Buffer, count: number, seed = 20240611): Buffer[] {
  const rnd = seeded(seed);
  const out: Buffer[] = [];
  for (let i = 0; i < count; i++) {
    const m = Buffer.from(base);
    const changes = 1 + Math.floor(rnd() * 4);
    for (let c = 0; c < changes; c++) {
      m[Math.floor(rnd() * m.length)] = Math.floor(rnd() * 256);
    }
    out.push(m);
  }
  return out;
}

/** Replaces the first occurrence of `from` in a built file, keeping every byte offset (same length). */
function patch(bytes: Buffer, from: string, to: string): Buffer {
  if (from.length !== to.length) {
    throw new Error('patch: same length only, so the xref offsets stay right');
  }
  const at = bytes.indexOf(from, 0, 'latin1');
  if (at < 0) {
    throw new Error(`patch: ${from} not found`);
  }
  const out = Buffer.from(bytes);
  out.write(to, at, 'latin1');
  return out;
}

/** Every xref table offset moved by `delta` bytes: the table points beside every object. */
function shiftXref(bytes: Buffer, delta: number): Buffer {
  const text = bytes.toString('latin1');
  const start = text.indexOf('\nxref\n');
  const fixed = text
    .slice(start)
    .replace(/^(\d{10}) 00000 n /gm, (_m, o: string) => `${String(Number(o) + delta).padStart(10, '0')} 00000 n `);
  return Buffer.from(text.slice(0, start) + fixed, 'latin1');
}

/** The corpus. `bombMiB` sets the size of the Flate bombs (1024: 1 GiB from about 1 MB). */
export function hostileCorpus(opts: { bombMiB?: number; mutantBase: Buffer; mutantCount?: number }): HostilePdf[] {
  const bomb = opts.bombMiB ?? 1024;
  const deep = (n: number, open: string, close: string) => open.repeat(n) + close.repeat(n);
  const valid = onePagePdf();
  const list: HostilePdf[] = [
    // The stray delimiter the attack test found: the parser looped on it, allocating without end.
    { name: 'stray ) in /Kids', bytes: onePagePdf({ pages: '<< /Type /Pages /Kids [3 0 R) /Count 1 >>' }), expect: 'refused' },
    { name: 'stray } in /Kids', bytes: onePagePdf({ pages: '<< /Type /Pages /Kids [3 0 R} /Count 1 >>' }), expect: 'refused' },
    {
      name: 'stray ) in the page tree dictionary',
      bytes: onePagePdf({ pages: '<< /Type /Pages ) /Kids [3 0 R] /Count 1 >>' }),
      expect: 'either',
    },
    { name: 'stray } in the catalog', bytes: onePagePdf({ catalog: '<< /Type /Catalog } /Pages 2 0 R >>' }), expect: 'either' },
    {
      name: 'stray ) in /MediaBox',
      bytes: onePagePdf({ page: '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842) /Contents 4 0 R >>' }),
      expect: 'either',
    },
    { name: 'stray } in the trailer', bytes: onePagePdf({ trailerExtra: '} ' }), expect: 'either' },
    { name: 'stray ) in a content stream dictionary', bytes: patch(valid, '<< /Length', '<< )Length'), expect: 'either' },
    {
      name: 'nested arrays 100 000 deep',
      bytes: onePagePdf({ page: `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /X ${deep(100_000, '[', ']')} >>` }),
      expect: 'either',
    },
    {
      name: 'nested dictionaries 50 000 deep',
      bytes: onePagePdf({ page: `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /X ${deep(50_000, '<< /A ', '>> ')} >>` }),
      expect: 'either',
    },
    {
      name: 'unclosed arrays 200 000 deep in the page tree',
      bytes: onePagePdf({ pages: `<< /Type /Pages /Kids [3 0 R] /Count 1 /X ${'['.repeat(200_000)} >>` }),
      expect: 'either',
    },
    {
      name: 'page tree node that is its own kid',
      bytes: onePagePdf({ pages: '<< /Type /Pages /Kids [2 0 R 3 0 R] /Count 1 >>' }),
      expect: 'either',
    },
    {
      name: 'page tree cycle through two nodes',
      bytes: onePagePdf({
        pages: '<< /Type /Pages /Kids [6 0 R] /Count 1 >>',
        extra: ['<< /Type /Pages /Parent 2 0 R /Kids [2 0 R 3 0 R] /Count 1 >>'],
      }),
      expect: 'either',
    },
    {
      name: 'page tree without pages, self-referencing',
      bytes: onePagePdf({ pages: '<< /Type /Pages /Kids [2 0 R] /Count 1 >>' }),
      expect: 'refused',
    },
    { name: 'huge /Count', bytes: onePagePdf({ pages: '<< /Type /Pages /Kids [3 0 R] /Count 2147483647 >>' }), expect: 'either' },
    { name: 'absurd /Count', bytes: onePagePdf({ pages: '<< /Type /Pages /Kids [3 0 R] /Count 1e300 >>' }), expect: 'either' },
    { name: `object stream inflating to ${bomb} MiB`, bytes: compressedPdf({ objStmTailMiB: bomb }), expect: 'refused', bomb: true },
    { name: `cross-reference stream inflating to ${bomb} MiB`, bytes: compressedPdf({ xrefTailMiB: bomb }), expect: 'refused', bomb: true },
    { name: 'xref table offsets shifted by 3 bytes', bytes: shiftXref(valid, 3), expect: 'damaged' },
    { name: 'xref table offsets shifted by -9 bytes', bytes: shiftXref(valid, -9), expect: 'damaged' },
    {
      name: 'startxref pointing nowhere',
      bytes: patch(
        valid,
        `startxref\n${valid.lastIndexOf('xref\n0 ')}`,
        `startxref\n${'9'.repeat(String(valid.lastIndexOf('xref\n0 ')).length)}`,
      ),
      expect: 'damaged',
    },
    { name: 'no xref keyword', bytes: patch(valid, '\nxref\n0 ', '\nxrex\n0 '), expect: 'damaged' },
    { name: 'truncated at 60%', bytes: valid.subarray(0, Math.floor(valid.length * 0.6)), expect: 'damaged' },
    { name: 'truncated before %%EOF', bytes: valid.subarray(0, valid.lastIndexOf('startxref')), expect: 'damaged' },
    { name: 'header only', bytes: Buffer.from('%PDF-1.7\n'), expect: 'refused' },
  ];
  mutants(opts.mutantBase, opts.mutantCount ?? 12).forEach((bytes, i) => {
    list.push({ name: `random mutant ${i + 1}`, bytes, expect: 'either' });
  });
  return list;
}
