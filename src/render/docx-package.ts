// The docx package: the zip archive, bounded before it is inflated, and the parts that can hold
// fields (the main document, then headers and footers), parsed as XML.
import { DOMParser } from '@xmldom/xmldom';
import type { Document } from '@xmldom/xmldom';
import JSZip from 'jszip';
import { TemplateError } from './types.js';
import { ZipBoundsError, checkZipBounds } from './zip-guard.js';

const REL_NS = 'http://schemas.openxmlformats.org/package/2006/relationships';
const OFFICE_DOCUMENT_REL = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument';

/** One XML part of the package that can hold fields. */
export interface Part {
  path: string;
  doc: Document;
}

// A real docx has tens of entries and rarely more than a few MB of XML and media.
const DOCX_BOUNDS = {
  maxEntries: 5000,
  maxTotalBytes: 200 * 1024 * 1024,
  // The parts this module reads (and so inflates): the package relationships and WordprocessingML.
  inflated: (name: string) => /\.(xml|rels)$/i.test(name),
};

/** The archive (to write the filled parts back into) and its parsed parts; a bad file is INVALID_TEMPLATE. */
export async function openPackage(bytes: Uint8Array): Promise<{ zip: JSZip; parts: Part[] }> {
  try {
    checkZipBounds(bytes, DOCX_BOUNDS);
  } catch (err) {
    if (err instanceof ZipBoundsError) {
      throw new TemplateError('INVALID_TEMPLATE', `The template is not a usable docx file: ${err.message}`);
    }
    throw err;
  }
  let zip: JSZip;
  try {
    zip = await JSZip.loadAsync(bytes);
  } catch (err) {
    throw new TemplateError('INVALID_TEMPLATE', 'The template is not a docx file (not a zip archive)', {
      cause: String(err),
    });
  }
  const mainPath = (await mainDocumentPath(zip)) ?? 'word/document.xml';
  const main = zip.file(mainPath);
  if (!main) {
    throw new TemplateError('INVALID_TEMPLATE', 'The template is not a docx file (no word/document.xml)');
  }
  // Body first, then headers and footers in number order: the order fields are listed in.
  const headerFooter = Object.keys(zip.files)
    .filter((p) => /^word\/(header|footer)\d*\.xml$/.test(p))
    .sort((a, b) => partRank(a) - partRank(b) || a.localeCompare(b, 'en', { numeric: true }));
  const parts: Part[] = [];
  for (const path of [mainPath, ...headerFooter]) {
    parts.push({ path, doc: parseXml(await zip.file(path)!.async('string'), path) });
  }
  return { zip, parts };
}

function partRank(path: string): number {
  return path.startsWith('word/header') ? 0 : 1;
}

/** The main document part named by _rels/.rels: some generators do not call it document.xml. */
async function mainDocumentPath(zip: JSZip): Promise<string | undefined> {
  const rels = zip.file('_rels/.rels');
  if (!rels) {
    return undefined;
  }
  const doc = parseXml(await rels.async('string'), '_rels/.rels');
  for (const rel of Array.from(doc.getElementsByTagNameNS(REL_NS, 'Relationship'))) {
    if (rel.getAttribute('Type') === OFFICE_DOCUMENT_REL && rel.getAttribute('TargetMode') !== 'External') {
      const target = (rel.getAttribute('Target') ?? '').replace(/^\//, '');
      return target && zip.file(target) ? target : undefined;
    }
  }
  return undefined;
}

function parseXml(xml: string, path: string): Document {
  try {
    return new DOMParser({
      onError: (level, message) => {
        if (level !== 'warning') {
          throw new Error(message);
        }
      },
    }).parseFromString(xml, 'application/xml');
  } catch (err) {
    throw new TemplateError('INVALID_TEMPLATE', `The template's ${path} is not well-formed XML`, {
      cause: err instanceof Error ? err.message : String(err),
    });
  }
}
