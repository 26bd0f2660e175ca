// The panel's document sets and templates, read-only: the list of sets (filtered by state, name and
// creation dates, in pages) and one set (GET /api/documentset/{uuid}), the templates and a template's fields (GET /developers/templates,
// GET /developers/template/{name}/fields), and a trial generation with sample values that answers
// the PDF and stores nothing (the template origin of POST /developers/json, without the document).
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import type { Deps } from '../../domain/deps.js';
import { listDocumentSets } from '../../domain/panel/list-document-sets.js';
import { getDocumentSet } from '../../domain/sets/get-set.js';
import { generatePdfFromTemplate } from '../../domain/templates/generate-pdf.js';
import { getTemplateFields, listTemplates } from '../../domain/templates/read-templates.js';
import { ErrorResponse } from '../../schemas/common.js';
import {
  PanelSetList,
  PanelSetParams,
  PanelSetQuery,
  PanelTemplateParams,
  PanelTemplateTrial,
  PanelTemplateTrialBody,
} from '../../schemas/panel.js';
import { DocumentSet } from '../../schemas/sets.js';
import { TemplateFields, TemplateList } from '../../schemas/templates.js';
import { sessionOf } from './session-of.js';

export function panelSetTemplateRoutes(deps: Deps) {
  return async function routes(app: FastifyInstance) {
    setRoutes(app, deps);
    templateRoutes(app, deps);
  };
}

function setRoutes(fastify: FastifyInstance, deps: Deps) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const list = { hide: true, querystring: PanelSetQuery, response: { 200: PanelSetList, '4xx': ErrorResponse } };
  app.get('/panel/api/sets', { schema: list }, async (req) =>
    // An empty choice in the page's form is no filter, as on the documents list.
    listDocumentSets(deps, { ...req.query, accountId: sessionOf(req).account_id, status: req.query.status || undefined }),
  );

  const one = { hide: true, params: PanelSetParams, response: { 200: DocumentSet, '4xx': ErrorResponse } };
  app.get('/panel/api/sets/:uuid', { schema: one }, async (req) =>
    getDocumentSet(deps, { accountId: sessionOf(req).account_id, uuid: req.params.uuid }),
  );
}

function templateRoutes(fastify: FastifyInstance, deps: Deps) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  app.get('/panel/api/templates', { schema: { hide: true, response: { 200: TemplateList, '4xx': ErrorResponse } } }, async (req) =>
    listTemplates(deps, { accountId: sessionOf(req).account_id }),
  );

  const fields = { hide: true, params: PanelTemplateParams, response: { 200: TemplateFields, '4xx': ErrorResponse } };
  app.get('/panel/api/templates/:name/fields', { schema: fields }, async (req) =>
    getTemplateFields(deps, { accountId: sessionOf(req).account_id, name: req.params.name }),
  );

  // A POST for its body of values (and so behind the CSRF token), though it changes nothing.
  const trial = {
    hide: true,
    params: PanelTemplateParams,
    body: PanelTemplateTrialBody,
    response: { 200: PanelTemplateTrial, '4xx': ErrorResponse },
  };
  app.post('/panel/api/templates/:name/try', { schema: trial }, async (req) => {
    const r = await generatePdfFromTemplate(deps, {
      accountId: sessionOf(req).account_id,
      template: { title: req.params.name },
      fields: req.body.fields,
      tables: req.body.tables,
    });
    return { name: r.name, warnings: r.warnings, pdf: r.bytes.toString('base64') };
  });
}
