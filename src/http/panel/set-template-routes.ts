// The panel's document sets and templates, read-only: the list of sets (filtered by state, name and
// creation dates, in pages) and one set (GET /api/documentset/{uuid}), the templates and a template's fields (GET /developers/templates,
// GET /developers/template/{name}/fields), and a trial generation with sample values that answers
// the PDF and stores nothing (the template origin of POST /developers/json, without the document).
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { Deps } from '../../domain/deps.js';
import { listDocumentSets } from '../../domain/panel/list-document-sets.js';
import { getDocumentSet } from '../../domain/sets/get-set.js';
import { generatePdfFromTemplate } from '../../domain/templates/generate-pdf.js';
import { getTemplateFields, listTemplates } from '../../domain/templates/read-templates.js';
import { asObject } from '../routes/documents.js';
import { sessionOf } from './session-of.js';

const SetQuery = Type.Object({
  q: Type.Optional(Type.String({ description: "text in the set's name, or its whole uuid" })),
  status: Type.Optional(Type.String({ description: 'one of the set states' })),
  from: Type.Optional(Type.String({ description: 'epoch milliseconds of creation, inclusive' })),
  to: Type.Optional(Type.String({ description: 'epoch milliseconds of creation, inclusive' })),
  limit: Type.Optional(Type.String()),
  nextToken: Type.Optional(Type.String()),
});
const SetParams = Type.Object({ uuid: Type.String({ maxLength: 100 }) });
const NameParams = Type.Object({ name: Type.String({ maxLength: 200 }) });

export function panelSetTemplateRoutes(deps: Deps) {
  return async function routes(app: FastifyInstance) {
    app.get('/panel/api/sets', { schema: { hide: true, querystring: SetQuery } }, async (req) => {
      const q = req.query as Record<string, string | undefined>;
      return listDocumentSets(deps, {
        accountId: sessionOf(req).account_id,
        // An empty choice in the page's form is no filter, as on the documents list.
        status: q.status || undefined,
        q: q.q,
        from: q.from,
        to: q.to,
        limit: q.limit,
        nextToken: q.nextToken,
      });
    });

    app.get('/panel/api/sets/:uuid', { schema: { hide: true, params: SetParams } }, async (req) =>
      getDocumentSet(deps, { accountId: sessionOf(req).account_id, uuid: (req.params as { uuid: string }).uuid }),
    );

    app.get('/panel/api/templates', { schema: { hide: true } }, async (req) =>
      listTemplates(deps, { accountId: sessionOf(req).account_id }),
    );

    app.get('/panel/api/templates/:name/fields', { schema: { hide: true, params: NameParams } }, async (req) =>
      getTemplateFields(deps, { accountId: sessionOf(req).account_id, name: (req.params as { name: string }).name }),
    );

    // A POST for its body of values (and so behind the CSRF token), though it changes nothing.
    app.post('/panel/api/templates/:name/try', { schema: { hide: true, params: NameParams } }, async (req) => {
      const body = asObject(req.body);
      const r = await generatePdfFromTemplate(deps, {
        accountId: sessionOf(req).account_id,
        template: { title: (req.params as { name: string }).name },
        fields: body.fields,
        tables: body.tables,
      });
      return { name: r.name, warnings: r.warnings, pdf: r.bytes.toString('base64') };
    });
  };
}
