// POST /developers/template/save and POST /developers/template/pdf?name=: registers a template in
// the account, or replaces the one of the same name, and answers what it declares.
import { decodeBase64 } from '../base64.js';
import { invalid } from '../errors.js';
import type { Deps } from '../deps.js';
import { fetchPdf } from '../documents/resolve-pdf-origin.js';
import { upsertTemplate } from '../../store/templates-repo.js';
import { putHeldBlob } from '../../store/blob-fence.js';
import type { TemplateType } from '../../store/schema.js';
import { engineCall } from './template-errors.js';
import { type SaveTemplateBody, TEMPLATE_TYPES } from '../../schemas/templates.js';
import type { SavedTemplate } from '../../schemas/templates.js';

export { TEMPLATE_TYPES };

export type { SavedTemplate };

/** A template's name as stored: trimmed, one line (the schema bounds its length). */
export function checkTemplateName(v: string, field = 'template_name'): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are exactly what this removes
  if (v.trim() === '' || v.length > 200 || /[\u0000-\u001f]/.test(v)) {
    throw invalid(field, 'required: a name of 1 to 200 characters, without control characters');
  }
  return v.trim();
}

export async function saveTemplate(deps: Deps, opts: { accountId: string; body: SaveTemplateBody }): Promise<SavedTemplate> {
  const b = opts.body;
  const name = checkTemplateName(b.template_name);
  const source = await readSource(deps, b);
  return storeTemplate(deps, { accountId: opts.accountId, name, type: b.template_type, source });
}

/** Detects the template's fields, stores its source and upserts the row. */
export async function storeTemplate(
  deps: Deps,
  t: { accountId: string; name: string; type: TemplateType; source: Buffer },
): Promise<SavedTemplate> {
  const detected = await engineCall(() => deps.templates.detect(t.type, t.source));
  await deps.db.transaction().execute(async (trx) => {
    const sha256 = await putHeldBlob(trx, deps.blobs, t.source);
    await upsertTemplate(trx, {
      accountId: t.accountId,
      name: t.name,
      type: t.type,
      sha256,
      fields: detected.fields,
      tables: detected.tables,
      at: deps.clock.now(),
    });
  });
  return { template_title: t.name, fields: detected.fields, tables: detected.tables };
}

/** The template's bytes: which form template_data (or url_doc) must take depends on the type. */
async function readSource(deps: Deps, b: SaveTemplateBody): Promise<Buffer> {
  const maxBytes = deps.config.limits.documentBytes;
  const type = b.template_type;
  const data = b.template_data;
  if (type === 'pdfmake') {
    if (typeof data !== 'object') {
      throw invalid('template_data', 'for pdfmake, the document definition as a JSON object (not Base64)');
    }
    return Buffer.from(JSON.stringify(data), 'utf8');
  }
  if (type === 'pdf' && b.url_doc !== undefined && b.url_doc !== null) {
    if (data !== undefined && data !== null) {
      throw invalid('url_doc', 'send either url_doc or template_data, not both');
    }
    const urlDoc = typeof b.url_doc === 'string' ? { url: b.url_doc } : b.url_doc;
    return (await fetchPdf(deps, urlDoc)).bytes;
  }
  if (typeof data !== 'string' || data === '') {
    throw invalid('template_data', type === 'pdf' ? 'required: Base64 of the PDF, or url_doc' : `required: Base64 of the ${type} file`);
  }
  return decodeBase64(data, { field: 'template_data', maxBytes });
}
