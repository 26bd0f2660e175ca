// pdfmake templates: a pdfmake document definition (JSON) whose strings may hold {{placeholders}}.
// Detection lists the placeholders; rendering substitutes the values and lays the document out
// with pdfmake, in process, with the Roboto fonts bundled with pdfmake (no network) and, for text
// Roboto cannot show, the service's own script faces (fonts/).
//
// pdfmake on the server reads any image given as a path from the local disk (and an SVG's <image>
// as well): a template saying `image: '/srv/sello/keys/...'` or a value filling `image: '{{logo}}'`
// would copy server files into the PDF. Only base64 PNG/JPEG data: URLs are accepted as images.
import { createRequire } from 'node:module';
import { bundledRobotoFont } from '../pdf/form/bundled-font.js';
import { TemplateError, type DetectedTemplate, type FillValues } from './types.js';

const require = createRequire(import.meta.url);

/** `{{ name }}`: spaces optional; names of letters, digits, `_`, `.` and `-`. */
const PLACEHOLDER = /\{\{[ \t]*([\p{L}\p{Nd}_.-]+)[ \t]*\}\}/gu;

type Variant = 'normal' | 'bold' | 'italics' | 'bolditalics';
type FontDescriptors = Record<string, Record<Variant, Buffer | string>>;

// pdfmake 0.2's server entry point is the PdfPrinter constructor (src/printer.js). The installed
// @types/pdfmake describes pdfmake 0.3 (createPdf, no PdfPrinter), so what is used is typed here.
interface PdfKitDocument {
  on(event: 'data', listener: (chunk: Buffer) => void): this;
  on(event: 'end', listener: () => void): this;
  on(event: 'error', listener: (err: Error) => void): this;
  end(): void;
}
type PdfPrinterClass = new (
  fonts: FontDescriptors,
) => {
  createPdfKitDocument(definition: Record<string, unknown>, options?: Record<string, unknown>): PdfKitDocument;
};

/**
 * The placeholders of a definition, in first-appearance order. Only string values are searched,
 * not object keys (pdfmake never shows keys). Images that are not data: URLs are refused here
 * already, unless they come from a placeholder (checked at render time).
 */
export function detectPdfmake(definition: unknown): DetectedTemplate {
  const def = checkDefinition(definition);
  const ids = new Set<string>();
  collectPlaceholders(def, ids);
  transform(def, null);
  return { fields: [...ids].map((id) => ({ id, value: '' })), tables: [] };
}

/**
 * Renders the definition with the values substituted. Roboto (regular, Medium as bold, italics)
 * is the default font family; text Roboto cannot show is set in the script faces
 * (pdfmake-scripts.ts). pdfmake lays the document out synchronously, on
 * this thread: a huge definition blocks the event loop while it renders (no timeout can stop it
 * short of running it in a worker).
 */
export async function renderPdfmake(definition: unknown, values: FillValues): Promise<Buffer> {
  // Texts with characters Roboto lacks are split into runs of faces that have them, in visual order
  // (loaded here, not at start: the shaper's WebAssembly is only needed once a document renders).
  const { installActualText, scriptFontFamilies, withScriptRuns } = await import('./pdfmake-scripts.js');
  const def = withScriptRuns(transform(checkDefinition(definition), values.fields) as Record<string, unknown>);
  const defaultStyle = isPlainObject(def.defaultStyle) ? def.defaultStyle : {};
  def.defaultStyle = { ...defaultStyle, font: defaultStyle.font ?? 'Roboto' };

  const PdfPrinter = require('pdfmake') as PdfPrinterClass;
  installActualText();
  const printer = new PdfPrinter({
    Roboto: {
      normal: bundledRobotoFont('normal'),
      bold: bundledRobotoFont('bold'),
      italics: bundledRobotoFont('italics'),
      bolditalics: bundledRobotoFont('bolditalics'),
    },
    ...scriptFontFamilies(),
  });
  let doc: PdfKitDocument;
  try {
    // Layout and drawing happen here, synchronously; errors are the definition's.
    doc = printer.createPdfKitDocument(def);
  } catch (err) {
    if (err instanceof TemplateError) {
      throw err; // from the SVG image guard
    }
    // pdfmake throws strings as well as Errors ('Invalid image: ...').
    const message = err instanceof Error ? err.message : String(err);
    throw new TemplateError('INVALID_TEMPLATE', `pdfmake cannot render the definition: ${message}`);
  }
  return new Promise<Buffer>((resolve, reject) => {
    const chunks: Buffer[] = [];
    doc.on('data', (chunk) => chunks.push(chunk));
    doc.on('end', () => resolve(Buffer.concat(chunks)));
    doc.on('error', (err) => reject(new TemplateError('INVALID_TEMPLATE', `pdfmake cannot render the definition: ${err.message}`)));
    doc.end();
  });
}

function checkDefinition(definition: unknown): Record<string, unknown> {
  if (!isPlainObject(definition)) {
    throw new TemplateError('INVALID_TEMPLATE', 'the pdfmake definition must be a JSON object');
  }
  if (definition.content === undefined || definition.content === null) {
    throw new TemplateError('INVALID_TEMPLATE', 'the pdfmake definition has no content');
  }
  // pdfkit would encrypt the output: the service signs generated documents, and encrypted PDFs do
  // not take reliable signatures (they are refused as uploads for that reason).
  for (const key of ['userPassword', 'ownerPassword', 'permissions']) {
    if (definition[key] !== undefined) {
      throw new TemplateError(
        'INVALID_TEMPLATE',
        `the pdfmake definition asks for encryption (${key}); generated documents must stay unencrypted to be signed`,
      );
    }
  }
  return definition;
}

function collectPlaceholders(node: unknown, ids: Set<string>): void {
  if (typeof node === 'string') {
    for (const m of node.matchAll(PLACEHOLDER)) {
      ids.add(m[1]);
    }
  } else if (Array.isArray(node)) {
    for (const item of node) {
      collectPlaceholders(item, ids);
    }
  } else if (isPlainObject(node)) {
    for (const value of Object.values(node)) {
      collectPlaceholders(value, ids);
    }
  }
}

/** A string with its placeholders replaced, and the names of the fields that were used. */
interface Substituted {
  text: string;
  fields: string[];
}

/**
 * Replaces the placeholders of one string. A single pass over the template string: the values are
 * inserted as text and never searched again, so a value holding "{{other}}" stays literal. The
 * replacer is a function, so "$&" and the like in a value are not special either. A missing value
 * is an empty string.
 */
function substitute(text: string, values: Map<string, string>): Substituted {
  const fields: string[] = [];
  const out = text.replace(PLACEHOLDER, (_m, id: string) => {
    fields.push(id);
    return values.get(id) ?? '';
  });
  return { text: out, fields };
}

/**
 * A deep copy of the definition with the values substituted (values null: detection, nothing
 * substituted), every image checked and inlined as a canonical data: URL, the top-level `images`
 * dictionary dropped (pdfmake tries each entry as a file path first), and a guard on SVG images.
 */
function transform(def: Record<string, unknown>, values: Map<string, string> | null): unknown {
  // The named images first: `image: 'logo'` refers to them.
  const named = new Map<string, string>();
  if (def.images !== undefined) {
    if (!isPlainObject(def.images)) {
      throw new TemplateError('INVALID_TEMPLATE', '"images" must be an object of data: URLs');
    }
    for (const [name, src] of Object.entries(def.images)) {
      if (typeof src !== 'string') {
        throw badImage(`images.${name}`, JSON.stringify(src) ?? String(src), []);
      }
      // (in detection, an entry filled by a placeholder is known by name, checked at render time)
      named.set(name, checkImage(src, `images.${name}`, values) ?? src);
    }
  }

  const walk = (node: unknown, path: string): unknown => {
    if (typeof node === 'string') {
      return values ? substitute(node, values).text : node;
    }
    if (typeof node === 'number' || typeof node === 'boolean' || node === null) {
      return node;
    }
    if (Array.isArray(node)) {
      return node.map((item, i) => walk(item, `${path}[${i}]`));
    }
    if (!isPlainObject(node)) {
      throw new TemplateError('INVALID_TEMPLATE', `${path || 'the definition'} is not JSON data`);
    }
    const copy: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(node)) {
      // An own "__proto__" key (JSON.parse makes them) would set the copy's prototype on assignment.
      if (key === '__proto__') {
        continue;
      }
      const at = path ? `${path}.${key}` : key;
      if (path === '' && key === 'images') {
        continue; // inlined below, see the comment of transform()
      }
      if (key === 'image' && !isPlainObject(value)) {
        // (an object under "image" is a style of that name; pdfmake never loads it)
        copy.image = resolveImage(value, at, named, values);
      } else {
        copy[key] = walk(value, at);
      }
    }
    if ('svg' in copy) {
      // svg-to-pdfkit opens an <image href> through pdfkit, which reads paths from disk. Its
      // imageCallback sees the href after the SVG parser decoded entities: the place to check it.
      const options = isPlainObject(copy.options) ? copy.options : {};
      copy.options = { ...options, imageCallback: svgImageGuard(`${path || 'definition'}.svg`) };
    }
    return copy;
  };
  return walk(def, '');
}

/** The data: URL an `image` value stands for; INVALID_TEMPLATE (or INVALID_VALUE) otherwise. */
function resolveImage(value: unknown, at: string, named: Map<string, string>, values: Map<string, string> | null): string {
  if (typeof value !== 'string') {
    throw badImage(at, JSON.stringify(value) ?? String(value), []);
  }
  const byName = named.get(values ? substitute(value, values).text : value);
  if (byName) {
    return byName;
  }
  // (null in detection when a placeholder fills it: checked once the value is known)
  return checkImage(value, at, values) ?? value;
}

/**
 * The canonical data: URL of an image source (base64 decoded and re-encoded, so that pdfkit's own
 * data: URL test — which fails on a line break — cannot send it to the disk instead), or
 * null in detection when the source is a placeholder.
 */
function checkImage(src: string, at: string, values: Map<string, string> | null): string | null {
  const { text, fields } = values ? substitute(src, values) : { text: src, fields: [] };
  if (!values && text.match(PLACEHOLDER)) {
    return null;
  }
  const url = canonicalDataUrl(text);
  if (!url) {
    throw badImage(at, text, fields);
  }
  return url;
}

function canonicalDataUrl(src: string): string | null {
  const m = /^data:[^,;]*(?:;[^,;]*)*;base64,([A-Za-z0-9+/=\s]*)$/i.exec(src.trim());
  if (!m) {
    return null;
  }
  const bytes = Buffer.from(m[1].replace(/\s+/g, ''), 'base64');
  // The formats pdfkit embeds; anything else would fail later with a less clear message.
  const mime =
    bytes.length > 8 && bytes.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))
      ? 'image/png'
      : bytes.length > 3 && bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff
        ? 'image/jpeg'
        : null;
  return mime ? `data:${mime};base64,${bytes.toString('base64')}` : null;
}

function badImage(at: string, src: string, fields: string[]): TemplateError {
  const shown = src.length > 60 ? `${src.slice(0, 57)}...` : src;
  const why = src.trim().toLowerCase().startsWith('data:')
    ? 'is not a base64 PNG or JPEG data: URL'
    : 'is not allowed: images must be base64 PNG or JPEG data: URLs (or names from "images"); pdfmake would read it from the server\'s disk';
  if (fields.length > 0) {
    return new TemplateError('INVALID_VALUE', `${fields[0]}: the image "${shown}" at ${at} ${why}`, { field: fields[0], path: at });
  }
  return new TemplateError('INVALID_TEMPLATE', `the image "${shown}" at ${at} ${why}`, { path: at });
}

function svgImageGuard(at: string): (href: string) => string {
  return (href) => {
    const url = canonicalDataUrl(href);
    if (!url) {
      throw badImage(`${at} <image>`, href, []);
    }
    return url;
  };
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) {
    return false;
  }
  const proto = Object.getPrototypeOf(v) as unknown;
  return proto === Object.prototype || proto === null;
}
