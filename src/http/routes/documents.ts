// Documents: create, list, download, delete and restore.
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import type { Deps } from '../../domain/deps.js';
import { createDocument } from '../../domain/documents/create-document.js';
import { deleteOrRestoreDocument } from '../../domain/documents/delete-or-restore.js';
import { getDocumentFile } from '../../domain/documents/get-document-file.js';
import { listDocuments } from '../../domain/documents/list-documents.js';
import { getStampPdf } from '../../domain/nom151/get-stamp-pdf.js';
import { listStamps } from '../../domain/nom151/list-stamps.js';
import { StampList, StampPdfParams, StampedRevision, StampsParams } from '../../schemas/stamps.js';
import { ErrorResponse } from '../../schemas/common.js';
import {
  CreateDocumentBody,
  CreatedDocument,
  DeleteOrRestoreBody,
  TicketBody,
  DeleteOrRestoreResult,
  DocumentListQuery,
  DocumentListing,
  DownloadParams,
  DownloadResponse,
} from '../../schemas/documents.js';
import type { TypedApp } from '../typed-app.js';
import { base64JsonStream } from '../base64-json-stream.js';
import { takeBase64Field } from '../json-base64-field.js';

export function documentRoutes(deps: Deps) {
  return async function routes(fastify: FastifyInstance) {
    const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
    createAndListRoutes(app, deps);
    fileRoutes(app, deps);
    deleteAndRestoreRoutes(app, deps);
  };
}

function createAndListRoutes(app: TypedApp, deps: Deps): void {
  app.post(
    '/developers/json',
    {
      schema: {
        operationId: 'createDocument',
        summary: 'Create a document from a PDF (b64_doc, url_doc) or a template, with signature boxes',
        tags: ['documents'],
        security: [{ hmac: [] }],
        body: CreateDocumentBody,
        response: { 200: CreatedDocument, '4xx': ErrorResponse },
      },
      // A 50 MB document is a 68 MB body: its b64_doc is decoded from the body's bytes, never made a string.
      config: { base64Field: 'b64_doc' },
    },
    async (req) => createDocument(deps, { accountId: req.account!.id, payload: req.body, b64DocBytes: takeBase64Field(req), ip: req.ip }),
  );

  app.get(
    '/api/document',
    {
      schema: {
        operationId: 'listDocuments',
        summary: 'List documents created in a time window, newest first',
        tags: ['documents'],
        security: [{ hmac: [] }],
        querystring: DocumentListQuery,
        response: { 200: DocumentListing, '4xx': ErrorResponse },
      },
    },
    async (req) => listDocuments(deps, { accountId: req.account!.id, ...req.query }),
  );
}

/** The renditions of a document, and its NOM-151 stamps. */
function fileRoutes(app: TypedApp, deps: Deps): void {
  app.get(
    '/api/document/:type/:ticket',
    {
      schema: {
        operationId: 'getDocumentFile',
        summary: 'Download a rendition of a document, Base64 in a JSON envelope with its SHA-256',
        description:
          '`source` is the PDF as created; `original` carries every signature applied so far; `universal` is the ' +
          'long-term-validation rendition, PAdES B-LTA (409 NOT_YET_AVAILABLE until it is built after completion; the details say why).',
        tags: ['documents'],
        security: [{ hmac: [] }],
        params: DownloadParams,
        response: { 200: DownloadResponse, '4xx': ErrorResponse },
      },
    },
    async (req, reply) => {
      const f = await getDocumentFile(deps, { accountId: req.account!.id, ticket: req.params.ticket, type: req.params.type });
      // Streamed in the serializer's order (hash, name, then the file): the Base64 of a large file
      // is never held whole (base64-json-stream.ts). The schema still describes the JSON written;
      // the type provider types send() by that schema and knows no stream, hence the cast.
      const { stream, length } = base64JsonStream({ hash: f.hash, name: f.name }, f.type, f.bytes);
      return reply
        .type('application/json; charset=utf-8')
        .header('content-length', length)
        .send(stream as never);
    },
  );

  // The stamp paths have the download route's shape (/api/document/{a}/{b}); the router prefers a
  // static segment over a parameter, so .../stamps and .../stamp/... reach these and not the download.
  app.get(
    '/api/document/:ticket/stamps',
    {
      schema: {
        operationId: 'listDocumentStamps',
        summary: "List a document's NOM-151 stamps: rendition, authority, time, token and covered hash",
        tags: ['nom151'],
        security: [{ hmac: [] }],
        params: StampsParams,
        response: { 200: StampList, '4xx': ErrorResponse },
      },
    },
    async (req) => listStamps(deps, { accountId: req.account!.id, ticket: req.params.ticket }),
  );

  app.get(
    '/api/document/:ticket/stamp/:stampHash/pdf',
    {
      schema: {
        operationId: 'getStampedRevision',
        summary: 'Download the exact bytes a stamp of the document covers, with the stamp',
        tags: ['nom151'],
        security: [{ hmac: [] }],
        params: StampPdfParams,
        response: { 200: StampedRevision, '4xx': ErrorResponse },
      },
    },
    async (req) => getStampPdf(deps, { accountId: req.account!.id, ticket: req.params.ticket, stampHash: req.params.stampHash }),
  );
}

function deleteAndRestoreRoutes(app: TypedApp, deps: Deps): void {
  app.post(
    '/developers/docs',
    {
      schema: {
        operationId: 'deleteOrRestoreDocument',
        summary: 'Delete a document (soft) or restore it to the state it had',
        tags: ['documents'],
        security: [{ hmac: [] }],
        body: DeleteOrRestoreBody,
        response: { 200: DeleteOrRestoreResult, '4xx': ErrorResponse },
      },
    },
    async (req) =>
      deleteOrRestoreDocument(deps, { accountId: req.account!.id, ticket: req.body.ticket, action: req.body.action, ip: req.ip }),
  );
  // Older public clients of the original service call these, with and without the final slash
  // (decisions.md "Paths of the operations"); they are /developers/docs with the action in the path.
  for (const action of ['delete', 'restore'] as const) {
    for (const path of [`/developers/${action}/`, `/developers/${action}`]) {
      app.post(
        path,
        {
          schema: {
            summary: `${action === 'delete' ? 'Delete' : 'Restore'} a document (the form older clients use; same as /developers/docs)`,
            operationId: `${action}DocumentByPath${path.endsWith('/') ? 'WithSlash' : ''}`,
            tags: ['documents'],
            security: [{ hmac: [] }],
            // Documented without the final slash (the form OpenAPI linters accept); both are served.
            hide: path.endsWith('/'),
            body: TicketBody,
            response: { 200: DeleteOrRestoreResult, '4xx': ErrorResponse },
          },
        },
        async (req) => deleteOrRestoreDocument(deps, { accountId: req.account!.id, ticket: req.body.ticket, action, ip: req.ip }),
      );
    }
  }
}
