// Templates: save (JSON or raw PDF bytes), list, and the fields of one.
import type { FastifyInstance } from 'fastify';
import { Type } from '@sinclair/typebox';
import type { Deps } from '../../domain/deps.js';
import { getTemplateFields, listTemplates } from '../../domain/templates/read-templates.js';
import { TEMPLATE_TYPES, checkTemplateName, saveTemplate, storeTemplate } from '../../domain/templates/save-template.js';
import { readSignedUpload } from '../multipart.js';
import { ErrorResponse } from '../schemas.js';
import { asObject } from './documents.js';

const Field = Type.Object(
  {
    id: Type.String(),
    value: Type.String(),
    type: Type.Optional(Type.String({ enum: ['text', 'checkbox', 'radio', 'choice'] })),
    options: Type.Optional(Type.Array(Type.String())),
  },
  { additionalProperties: false },
);
const SavedTemplate = Type.Object({
  template_title: Type.String(),
  fields: Type.Array(Field),
  tables: Type.Array(Type.Object({ id: Type.String(), rows: Type.Array(Type.Array(Field)) })),
});
// Bodies are validated by the use cases, whose messages name the field; schemas document them.
const documentOnly = () => () => true;

export function templateRoutes(deps: Deps) {
  return async function routes(app: FastifyInstance) {
    app.post(
      '/developers/template/save',
      {
        schema: {
          summary: 'Register a template (html, pdf, pdfmake, docx) or replace the one of the same name',
          tags: ['templates'],
          security: [{ hmac: [] }],
          body: Type.Object({
            template_type: Type.String({ enum: [...TEMPLATE_TYPES] }),
            template_name: Type.String(),
            template_data: Type.Optional(
              Type.Union([
                Type.String({ description: 'Base64 (html, docx, pdf)' }),
                Type.Object({}, { additionalProperties: true, description: 'pdfmake definition' }),
              ]),
            ),
            url_doc: Type.Optional(
              Type.Union([Type.String(), Type.Object({ url: Type.String() })], { description: 'pdf: URL of a PDF form' }),
            ),
          }),
          response: { 200: SavedTemplate, '4xx': ErrorResponse },
        },
        validatorCompiler: documentOnly,
      },
      async (req) => saveTemplate(deps, { accountId: req.account!.id, body: asObject(req.body) }),
    );

    app.post(
      '/developers/template/pdf',
      {
        schema: {
          summary: 'Register a pdf template from the raw PDF (multipart part `file`)',
          description: 'The signature is over the `Content-SHA256` header: Base64 of the SHA-256 of the file.',
          tags: ['templates'],
          security: [{ hmac: [] }],
          consumes: ['multipart/form-data'],
          querystring: Type.Object({ name: Type.String({ description: 'template name' }) }),
          response: { 200: SavedTemplate, '4xx': ErrorResponse },
        },
        validatorCompiler: documentOnly,
      },
      async (req) => {
        const name = checkTemplateName((req.query as { name?: unknown }).name, 'name');
        const upload = await readSignedUpload(req);
        return storeTemplate(deps, { accountId: req.account!.id, name, type: 'pdf', source: upload.file });
      },
    );

    app.get(
      '/developers/templates',
      {
        schema: {
          summary: "The account's templates",
          tags: ['templates'],
          security: [{ hmac: [] }],
          response: {
            200: Type.Object({
              templates: Type.Array(
                Type.Object({
                  template_title: Type.String(),
                  template_type: Type.String(),
                  fields: Type.Integer({ description: 'how many fields' }),
                  tables: Type.Integer({ description: 'how many tables' }),
                  created_at: Type.String({ format: 'date-time' }),
                  updated_at: Type.String({ format: 'date-time' }),
                }),
              ),
            }),
            '4xx': ErrorResponse,
          },
        },
      },
      async (req) => listTemplates(deps, { accountId: req.account!.id }),
    );

    app.get(
      '/developers/template/:name/fields',
      {
        schema: {
          summary: 'The fields and tables a template expects',
          tags: ['templates'],
          security: [{ hmac: [] }],
          params: Type.Object({ name: Type.String() }),
          response: { 200: Type.Composite([SavedTemplate, Type.Object({ template_type: Type.String() })]), '4xx': ErrorResponse },
        },
      },
      async (req) => getTemplateFields(deps, { accountId: req.account!.id, name: (req.params as { name: string }).name }),
    );
  };
}
