// .docx fixtures written the way Word writes them: rsids on runs, every fldChar in a run of its
// own, instructions split over runs, «Name» results, content controls showing their placeholder
// in the PlaceholderText style. Made with jszip so the tests depend on no office suite.
import JSZip from 'jszip';

const NS =
  'xmlns:wpc="http://schemas.microsoft.com/office/word/2010/wordprocessingCanvas" ' +
  'xmlns:mc="http://schemas.openxmlformats.org/markup-compatibility/2006" ' +
  'xmlns:o="urn:schemas-microsoft-com:office:office" ' +
  'xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships" ' +
  'xmlns:m="http://schemas.openxmlformats.org/officeDocument/2006/math" ' +
  'xmlns:v="urn:schemas-microsoft-com:vml" ' +
  'xmlns:w10="urn:schemas-microsoft-com:office:word" ' +
  'xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main" ' +
  'xmlns:w14="http://schemas.microsoft.com/office/word/2010/wordml" ' +
  'xmlns:w15="http://schemas.microsoft.com/office/word/2012/wordml" ' +
  'xmlns:wne="http://schemas.microsoft.com/office/word/2006/wordml" ' +
  'mc:Ignorable="w14 w15"';

const DECL = '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\r\n';

function esc(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

/** How Word writes a field name in an instruction: quoted when it holds a space. */
function fieldName(name: string): string {
  return /\s/.test(name) ? `"${name}"` : name;
}

/** A run of text. */
export function run(text: string, opts: { bold?: boolean; italic?: boolean } = {}): string {
  const rPr = opts.bold || opts.italic ? `<w:rPr>${opts.bold ? '<w:b/><w:bCs/>' : ''}${opts.italic ? '<w:i/><w:iCs/>' : ''}</w:rPr>` : '';
  const space = /^\s|\s$/.test(text) ? ' xml:space="preserve"' : '';
  return `<w:r w:rsidR="00A1B2C3">${rPr}<w:t${space}>${esc(text)}</w:t></w:r>`;
}

/** A paragraph of the given inline content (runs, fields, run-level controls). */
export function paragraph(...inline: string[]): string {
  return `<w:p w:rsidR="00A1B2C3" w:rsidRDefault="00A1B2C3">${inline.join('')}</w:p>`;
}

/** A simple merge field, its «Name» result in bold, as Word writes an inserted field. */
export function simpleMergeField(name: string): string {
  return (
    `<w:fldSimple w:instr=" MERGEFIELD  ${esc(fieldName(name))} \\* MERGEFORMAT ">` +
    `<w:r w:rsidR="00D4E5F6"><w:rPr><w:b/><w:bCs/><w:noProof/></w:rPr><w:t>«${esc(name)}»</w:t></w:r>` +
    '</w:fldSimple>'
  );
}

function fldChar(type: 'begin' | 'separate' | 'end', rPr: string): string {
  return `<w:r w:rsidR="00D4E5F6">${rPr}<w:fldChar w:fldCharType="${type}"/></w:r>`;
}

function instrText(text: string, rPr: string): string {
  return `<w:r w:rsidR="00D4E5F6">${rPr}<w:instrText xml:space="preserve">${esc(text)}</w:instrText></w:r>`;
}

/**
 * A complex merge field: begin, instruction, separate, the «Name» result, end. The instruction
 * can be given in pieces, one run each, as Word leaves it after editing.
 */
export function complexMergeField(name: string, opts: { italic?: boolean; instructionParts?: string[] } = {}): string {
  const rPr = opts.italic ? '<w:rPr><w:i/><w:iCs/></w:rPr>' : '';
  const parts = opts.instructionParts ?? [` MERGEFIELD ${fieldName(name)} \\* MERGEFORMAT `];
  return (
    fldChar('begin', rPr) +
    parts.map((p) => instrText(p, rPr)).join('') +
    fldChar('separate', rPr) +
    `<w:r w:rsidR="00D4E5F6">${opts.italic ? '<w:rPr><w:i/><w:iCs/><w:noProof/></w:rPr>' : '<w:rPr><w:noProof/></w:rPr>'}<w:t>«${esc(name)}»</w:t></w:r>` +
    fldChar('end', rPr)
  );
}

/** A complex merge field whose instruction Word split over three runs: ` MERGE` `FIELD Cust` `omer `. */
export function splitComplexMergeField(name = 'Customer'): string {
  const instr = ` MERGEFIELD ${fieldName(name)} `;
  const a = ' MERGE'.length;
  const b = a + 'FIELD '.length + Math.min(4, name.length);
  return complexMergeField(name, { instructionParts: [instr.slice(0, a), instr.slice(a, b), instr.slice(b)] });
}

let sdtId = 100;

/** A run-level plain-text content control showing its placeholder. */
export function plainTextControl(tag: string, placeholder = 'Click or tap here to enter text.'): string {
  return (
    '<w:sdt><w:sdtPr>' +
    `<w:alias w:val="${esc(tag)}"/><w:tag w:val="${esc(tag)}"/><w:id w:val="${sdtId++}"/>` +
    '<w:placeholder><w:docPart w:val="DefaultPlaceholder_-1854013440"/></w:placeholder>' +
    '<w:showingPlcHdr/><w:text/></w:sdtPr><w:sdtEndPr/>' +
    `<w:sdtContent><w:r w:rsidRPr="00F1E2D3"><w:rPr><w:rStyle w:val="PlaceholderText"/></w:rPr><w:t>${esc(placeholder)}</w:t></w:r></w:sdtContent>` +
    '</w:sdt>'
  );
}

/** A block-level rich-text content control (no type element) showing its placeholder. */
export function richTextControl(tag: string, placeholder = 'Click or tap here to enter text.'): string {
  return (
    '<w:sdt><w:sdtPr>' +
    `<w:alias w:val="${esc(tag)}"/><w:tag w:val="${esc(tag)}"/><w:id w:val="${sdtId++}"/>` +
    '<w:placeholder><w:docPart w:val="DefaultPlaceholder_-1854013440"/></w:placeholder>' +
    '<w:showingPlcHdr/></w:sdtPr><w:sdtEndPr/>' +
    '<w:sdtContent><w:p w:rsidR="00F1E2D3" w:rsidRDefault="00F1E2D3">' +
    `<w:r w:rsidRPr="00F1E2D3"><w:rPr><w:rStyle w:val="PlaceholderText"/></w:rPr><w:t>${esc(placeholder)}</w:t></w:r>` +
    '</w:p></w:sdtContent></w:sdt>'
  );
}

const STYLES =
  DECL +
  `<w:styles ${NS}>` +
  '<w:docDefaults><w:rPrDefault><w:rPr><w:rFonts w:ascii="Liberation Sans" w:hAnsi="Liberation Sans" w:cs="Liberation Sans"/>' +
  '<w:sz w:val="22"/><w:lang w:val="en-US"/></w:rPr></w:rPrDefault><w:pPrDefault><w:pPr><w:spacing w:after="160"/></w:pPr></w:pPrDefault></w:docDefaults>' +
  '<w:style w:type="paragraph" w:default="1" w:styleId="Normal"><w:name w:val="Normal"/><w:qFormat/></w:style>' +
  '<w:style w:type="character" w:styleId="PlaceholderText"><w:name w:val="Placeholder Text"/><w:basedOn w:val="DefaultParagraphFont"/>' +
  '<w:uiPriority w:val="99"/><w:semiHidden/><w:rPr><w:color w:val="808080"/></w:rPr></w:style>' +
  '</w:styles>';

/** A minimal valid package: the body's blocks, and a header (wired to the section) if given. */
export async function buildDocx(opts: { body: string[]; header?: string[] }): Promise<Buffer> {
  const zip = new JSZip();
  const hasHeader = opts.header !== undefined;
  zip.file(
    '[Content_Types].xml',
    DECL +
      '<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">' +
      '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>' +
      '<Default Extension="xml" ContentType="application/xml"/>' +
      '<Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/>' +
      '<Override PartName="/word/styles.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.styles+xml"/>' +
      (hasHeader
        ? '<Override PartName="/word/header1.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.header+xml"/>'
        : '') +
      '</Types>',
  );
  zip.file(
    '_rels/.rels',
    DECL +
      '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">' +
      '<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/>' +
      '</Relationships>',
  );
  zip.file(
    'word/_rels/document.xml.rels',
    DECL +
      '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">' +
      '<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/styles" Target="styles.xml"/>' +
      (hasHeader
        ? '<Relationship Id="rId7" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/header" Target="header1.xml"/>'
        : '') +
      '</Relationships>',
  );
  zip.file('word/styles.xml', STYLES);
  const sectPr =
    `<w:sectPr w:rsidR="00A1B2C3">${hasHeader ? '<w:headerReference w:type="default" r:id="rId7"/>' : ''}` +
    '<w:pgSz w:w="11906" w:h="16838"/><w:pgMar w:top="1417" w:right="1417" w:bottom="1134" w:left="1417" w:header="708" w:footer="708" w:gutter="0"/>' +
    '<w:cols w:space="708"/><w:docGrid w:linePitch="360"/></w:sectPr>';
  zip.file('word/document.xml', `${DECL}<w:document ${NS}><w:body>${opts.body.join('')}${sectPr}</w:body></w:document>`);
  if (hasHeader) {
    zip.file('word/header1.xml', `${DECL}<w:hdr ${NS}>${opts.header!.join('')}</w:hdr>`);
  }
  return zip.generateAsync({ type: 'nodebuffer', compression: 'DEFLATE' });
}

/** The field ids of {@link buildAllFieldsDocx}, in first-appearance order (body, then header). */
export const ALL_FIELD_IDS = ['Company', 'Start Date', 'Customer', 'Amount', 'Notes', 'Reference'];

/**
 * One document with every kind of field: a simple merge field (bold), a complex one with a quoted
 * name (italic), one whose instruction is split over three runs, a plain-text and a rich-text
 * content control, the simple field again (one field), and a complex field in the header.
 */
export async function buildAllFieldsDocx(): Promise<Buffer> {
  return buildDocx({
    body: [
      paragraph(run('Service agreement', { bold: true })),
      paragraph(
        run('This agreement is made with '),
        simpleMergeField('Company'),
        run(', starting on '),
        complexMergeField('Start Date', { italic: true }),
        run('.'),
      ),
      paragraph(run('Customer: '), splitComplexMergeField('Customer'), run(' (the customer).')),
      paragraph(run('Amount due: '), plainTextControl('Amount'), run(' EUR.')),
      richTextControl('Notes'),
      paragraph(run('Signed for '), simpleMergeField('Company'), run(' below.')),
    ],
    header: [paragraph(run('Ref. '), complexMergeField('Reference'))],
  });
}
