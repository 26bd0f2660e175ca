// Templates: save (JSON or raw PDF bytes), list, and the fields of one.
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import type { Deps } from '../../domain/deps.js';
import { getTemplateFields, listTemplates } from '../../domain/templates/read-templates.js';
import { checkTemplateName, saveTemplate, storeTemplate } from '../../domain/templates/save-template.js';
import { readSignedUpload } from '../multipart.js';
import { ErrorResponse } from '../../schemas/common.js';
import {
  SaveTemplateBody,
  SavedTemplate,
  TemplateFields,
  TemplateList,
  TemplateNameQuery,
  TemplateParams,
  TemplateUpload,
} from '../../schemas/templates.js';

export function templateRoutes(deps: Deps) {
  return async function routes(fastify: FastifyInstance) {
    const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
    app.post(
      '/developers/template/save',
      {
        schema: {
          operationId: 'saveTemplate',
          summary: 'Register a template (html, pdf, pdfmake, docx) or replace the one of the same name',
          tags: ['templates'],
          security: [{ hmac: [] }],
          body: SaveTemplateBody,
          response: { 200: SavedTemplate, '4xx': ErrorResponse },
        },
      },
      async (req) => saveTemplate(deps, { accountId: req.account!.id, body: req.body }),
    );

    app.post(
      '/developers/template/pdf',
      {
        schema: {
          operationId: 'saveTemplatePdf',
          summary: 'Register a pdf template from the raw PDF (multipart part `file`)',
          description: 'The signature is over the `Content-SHA256` header: Base64 of the SHA-256 of the file.',
          tags: ['templates'],
          security: [{ hmac: [] }],
          consumes: ['multipart/form-data'],
          querystring: TemplateNameQuery,
          body: TemplateUpload,
          response: { 200: SavedTemplate, '4xx': ErrorResponse },
        },
      },
      async (req) => {
        const name = checkTemplateName(req.query.name, 'name');
        const upload = await readSignedUpload(req);
        return storeTemplate(deps, { accountId: req.account!.id, name, type: 'pdf', source: upload.file });
      },
    );

    app.get(
      '/developers/templates',
      {
        schema: {
          operationId: 'listTemplates',
          summary: "The account's templates",
          tags: ['templates'],
          security: [{ hmac: [] }],
          response: { 200: TemplateList, '4xx': ErrorResponse },
        },
      },
      async (req) => listTemplates(deps, { accountId: req.account!.id }),
    );

    app.get(
      '/developers/template/:name/fields',
      {
        schema: {
          operationId: 'getTemplateFields',
          summary: 'The fields and tables a template expects',
          tags: ['templates'],
          security: [{ hmac: [] }],
          params: TemplateParams,
          response: { 200: TemplateFields, '4xx': ErrorResponse },
        },
      },
      async (req) => getTemplateFields(deps, { accountId: req.account!.id, name: req.params.name }),
    );
  };
}
