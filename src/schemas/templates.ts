// Templates: save (JSON or raw PDF bytes), list, and the fields of one (routes/templates.ts).
import { type Static, Type } from '@sinclair/typebox';
import { DateTime, Nullable, StringEnum, checkedByUseCase } from './common.js';
import { examples } from './common.js';

export const TEMPLATE_TYPES = ['html', 'pdf', 'pdfmake', 'docx'] as const;

const Field = Type.Object(
  {
    id: Type.String(),
    value: Type.String(),
    type: Type.Optional(StringEnum(['text', 'checkbox', 'radio', 'choice'], { description: 'pdf templates only' })),
    options: Type.Optional(Type.Array(Type.String())),
  },
  { additionalProperties: false },
);

export const SavedTemplate = Type.Object({
  template_title: Type.String(),
  fields: Type.Array(Field),
  tables: Type.Array(Type.Object({ id: Type.String(), rows: Type.Array(Type.Array(Field)) })),
});
export type SavedTemplate = Static<typeof SavedTemplate>;
examples(
  SavedTemplate,
  {
    template_title: 'contrato',
    fields: [
      { id: 'client', value: '' },
      { id: 'date', value: '' },
    ],
    tables: [
      {
        id: 'items',
        rows: [
          [
            { id: 'item', value: '' },
            { id: 'qty', value: '' },
          ],
        ],
      },
    ],
  },
  {
    template_title: 'alta',
    fields: [
      { id: 'person.name', value: '', type: 'text' },
      { id: 'agree', value: '', type: 'checkbox', options: ['Off', 'Accepted'] },
      { id: 'plan', value: '', type: 'radio', options: ['basic', 'pro', 'enterprise'] },
      { id: 'country', value: '', type: 'choice', options: ['France', 'Germany', 'Spain'] },
    ],
    tables: [],
  },
);

export const SaveTemplateBody = Type.Object({
  template_type: StringEnum(TEMPLATE_TYPES),
  template_name: Type.String({ description: '1 to 200 characters, without control characters' }),
  template_data: Type.Optional(
    Type.Union([
      Type.String({ description: 'Base64 (html, docx, pdf)' }),
      Type.Object({}, { additionalProperties: true, description: 'pdfmake definition' }),
    ]),
  ),
  url_doc: Type.Optional(
    Nullable(Type.Union([Type.String(), Type.Object({ url: Type.String() })]), { description: 'pdf: URL of a PDF form' }),
  ),
});
export type SaveTemplateBody = Static<typeof SaveTemplateBody>;
examples(
  SaveTemplateBody,
  { template_type: 'html', template_name: 'contrato', template_data: 'PCFkb2N0eXBlIGh0bWw+...' },
  {
    template_type: 'pdfmake',
    template_name: 'recibo',
    template_data: {
      content: [{ text: 'Recibo para {{name}}', fontSize: 16 }, { table: { body: [['Total', '{{ total }}']] } }],
      footer: { text: 'Ref {{ref}}' },
    },
  },
);

export const TemplateNameQuery = Type.Object({ name: Type.String({ description: 'template name' }) });

/** multipart/form-data: the PDF in part `file` (read by http/multipart.ts). */
// Multipart: the handler reads the parts as a stream (http/multipart.ts) once Content-SHA256 is
// checked; there is no parsed body for the validator to check before.
export const TemplateUpload = Type.Object(
  { file: Type.String({ format: 'binary', description: 'the PDF form' }) },
  { ...checkedByUseCase, description: 'multipart/form-data; the signature is over the Content-SHA256 header' },
);

export const TemplateList = Type.Object({
  templates: Type.Array(
    Type.Object({
      template_title: Type.String(),
      template_type: StringEnum(TEMPLATE_TYPES),
      fields: Type.Integer({ description: 'how many fields' }),
      tables: Type.Integer({ description: 'how many tables' }),
      created_at: DateTime(),
      updated_at: DateTime(),
    }),
  ),
});
export type TemplateList = Static<typeof TemplateList>;
examples(TemplateList, {
  templates: [
    {
      template_title: 'alta',
      template_type: 'pdf',
      fields: 4,
      tables: 0,
      created_at: '2026-11-22T02:58:10.114Z',
      updated_at: '2026-11-22T02:58:10.114Z',
    },
    {
      template_title: 'contrato',
      template_type: 'html',
      fields: 2,
      tables: 1,
      created_at: '2026-11-22T02:57:41.503Z',
      updated_at: '2026-11-22T03:01:12.870Z',
    },
  ],
});

export const TemplateParams = Type.Object({ name: Type.String() });

export const TemplateFields = Type.Composite([SavedTemplate, Type.Object({ template_type: StringEnum(TEMPLATE_TYPES) })]);
export type TemplateFields = Static<typeof TemplateFields>;
examples(TemplateFields, {
  template_title: 'contrato',
  template_type: 'html',
  fields: [
    { id: 'client', value: '' },
    { id: 'date', value: '' },
  ],
  tables: [
    {
      id: 'items',
      rows: [
        [
          { id: 'item', value: '' },
          { id: 'qty', value: '' },
        ],
      ],
    },
  ],
});
