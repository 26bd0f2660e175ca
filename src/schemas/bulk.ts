// Bulk send (decisions.md "Bulk send"): one template or PDF with its boxes and many rows, each row
// made into one document by the same use case as POST /developers/json (routes/bulk.ts).
import { type Static, Type } from '@sinclair/typebox';
import { CreateDocumentBody } from './documents.js';
import { checkedByUseCase, DateTime, examples, StringEnum } from './common.js';

export const BULK_STATES = ['running', 'completed', 'stopped'] as const;

export const CreateBulkBody = Type.Object(
  {
    template: Type.Optional(Type.Unknown({ description: 'a template of the account, {title, name?}, as in POST /developers/json' })),
    b64_doc: Type.Optional(Type.String({ description: 'Base64 of the PDF every row is made from; read once' })),
    url_doc: Type.Optional(CreateDocumentBody.properties.url_doc),
    stickers: Type.Optional(
      Type.Array(Type.Unknown(), {
        ...checkedByUseCase,
        description: 'the boxes, as in POST /developers/json; any string may hold {{row.<key>}} placeholders',
      }),
    ),
    workflow: Type.Optional(Type.Unknown({ description: 'as in POST /developers/json; strings may hold placeholders' })),
    rows: Type.Array(Type.Unknown(), {
      ...checkedByUseCase,
      description:
        "one object per document: the values of its {{row.<key>}} placeholders, and `fields` (the template's values). " +
        'At most SELLO_BULK_MAX_ROWS (1,000 by default).',
    }),
  },
  {
    additionalProperties: true,
    description: 'Other keys of POST /developers/json (name, qr, nom151, certified_email, …) apply to every row, placeholders filled.',
  },
);
export type CreateBulkInput = Static<typeof CreateBulkBody>;
examples(CreateBulkBody, {
  template: { title: 'contrato' },
  stickers: [{ authority: 'EMAIL_LINK', data: '{{row.email}}', page: 0, rect: { lx: 60, ly: 60, tx: 260, ty: 130 } }],
  rows: [
    { email: 'ana@example.com', fields: { nombre: 'Ana' } },
    { email: 'bob@example.com', fields: { nombre: 'Bob' } },
  ],
});

export const CreateBulkHeaders = Type.Object({
  'idempotency-key': Type.String({
    minLength: 1,
    maxLength: 200,
    description: 'the same key and body again answer the same run; the same key with another body is 409',
  }),
});

export const BulkStarted = Type.Object({
  bulk_id: Type.String(),
  state: StringEnum(BULK_STATES),
  rows: Type.Integer({ description: 'how many rows the run has' }),
});
export type BulkStarted = Static<typeof BulkStarted>;
examples(BulkStarted, { bulk_id: '3b0f2c52-8f0e-4f5e-9d8a-6a1d2c3b4e5f', state: 'running', rows: 2 });

export const BulkParams = Type.Object({ bulk_id: Type.String({ minLength: 1, maxLength: 64 }) });
export const BulkQuery = Type.Object({
  offset: Type.Optional(Type.String({ pattern: '^[0-9]{1,9}$', description: 'index of the first row listed; default 0' })),
  limit: Type.Optional(Type.String({ pattern: '^[0-9]{1,4}$', description: 'most rows listed, 1..1000; default 100' })),
});

const RowError = Type.Object({ code: Type.String(), message: Type.String(), details: Type.Optional(Type.Unknown()) });
export const BulkRowOutcome = Type.Union([
  Type.Object({ index: Type.Integer(), document_ticket: Type.String() }),
  Type.Object({ index: Type.Integer(), error: RowError }),
]);

export const BulkRun = Type.Object({
  bulk_id: Type.String(),
  state: StringEnum(BULK_STATES),
  created_at: DateTime(),
  finished_at: Type.Union([DateTime(), Type.Null()]),
  total: Type.Integer({ description: 'rows in the run' }),
  created: Type.Integer({ description: 'rows made into a document' }),
  refused: Type.Integer({ description: 'rows refused, with the error a single create gives (not_made included)' }),
  not_made: Type.Integer({ description: "rows not made because the account's documents package ran out" }),
  pending: Type.Integer({ description: 'rows not done yet' }),
  offset: Type.Integer(),
  rows: Type.Array(BulkRowOutcome, { description: 'outcomes of the rows done, by index, from offset; rows not done yet are left out' }),
  next_offset: Type.Union([Type.Integer(), Type.Null()], { description: 'offset of the next page, or null' }),
});
export type BulkRun = Static<typeof BulkRun>;
examples(BulkRun, {
  bulk_id: '3b0f2c52-8f0e-4f5e-9d8a-6a1d2c3b4e5f',
  state: 'stopped',
  created_at: '2026-11-28T18:00:00.000Z',
  finished_at: '2026-11-28T18:00:09.412Z',
  total: 3,
  created: 1,
  refused: 2,
  not_made: 1,
  pending: 0,
  offset: 0,
  rows: [
    { index: 0, document_ticket: '80c4eab2-51ac-4aa7-b3be-9a2a58282d14' },
    {
      index: 1,
      error: { code: 'INVALID_STICKER', message: 'stickers[0].page: the PDF has 1 page', details: { field: 'stickers[0].page' } },
    },
    {
      index: 2,
      error: {
        code: 'PACKAGE_EXHAUSTED',
        message: "no documents left in the account's packages: contract a new package to go on",
        details: { kind: 'documents' },
      },
    },
  ],
  next_offset: null,
});

export const BulkListQuery = Type.Object({
  offset: Type.Optional(Type.String({ pattern: '^[0-9]{1,9}$', description: 'runs skipped; default 0' })),
  limit: Type.Optional(Type.String({ pattern: '^[0-9]{1,3}$', description: 'most runs listed, 1..100; default 20' })),
});

export const BulkRunSummary = Type.Object({
  bulk_id: Type.String(),
  state: StringEnum(BULK_STATES),
  created_at: DateTime(),
  finished_at: Type.Union([DateTime(), Type.Null()]),
  total: Type.Integer(),
  created: Type.Integer(),
  refused: Type.Integer({ description: 'not_made included' }),
  pending: Type.Integer(),
});

/** The panel's list of the account's runs (GET /panel/api/bulk). */
export const BulkRunList = Type.Object({
  runs: Type.Array(BulkRunSummary, { description: 'newest first' }),
  offset: Type.Integer(),
  next_offset: Type.Union([Type.Integer(), Type.Null()]),
  max_rows: Type.Integer({ description: 'most rows a run may have (SELLO_BULK_MAX_ROWS)' }),
});
export type BulkRunList = Static<typeof BulkRunList>;
