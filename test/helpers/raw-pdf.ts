// A PDF written object by object, with its cross-reference table computed: for fixtures that must
// hold exactly what another producer wrote (a field with a value and no appearance stream, a page
// with /UserUnit), with no library filling in what it would add on its own.

/** `objects[i]` is the body of object i + 1 (without `n 0 obj`/`endobj`); object 1 is the catalog. */
export function rawPdf(objects: (string | { dict: string; stream: string })[], version = '1.7'): Buffer {
  const parts: Buffer[] = [Buffer.from(`%PDF-${version}\n%\xe2\xe3\xcf\xd3\n`, 'latin1')];
  let offset = parts[0].length;
  const offsets: number[] = [];
  objects.forEach((o, i) => {
    offsets.push(offset);
    const body =
      typeof o === 'string'
        ? o
        : `${o.dict.replace(/>>\s*$/, '')} /Length ${Buffer.byteLength(o.stream, 'latin1')} >>\nstream\n${o.stream}\nendstream`;
    const chunk = Buffer.from(`${i + 1} 0 obj\n${body}\nendobj\n`, 'latin1');
    parts.push(chunk);
    offset += chunk.length;
  });
  const xref = [
    `xref\n0 ${objects.length + 1}\n`,
    '0000000000 65535 f \n',
    ...offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n \n`),
  ];
  parts.push(
    Buffer.from(`${xref.join('')}trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${offset}\n%%EOF\n`, 'latin1'),
  );
  return Buffer.concat(parts);
}
