// The panel's documents: the list (search, state, dates, pages), one document (its signers, and its
// history with the chain's check and the signers' names), its downloads, and its NOM-151 stamps
// with the exact bytes each covers (GET /api/document/{ticket}/stamps and
// .../stamp/{stampHash}/pdf). Each calls the use case the HMAC API calls, with the session's
// account.
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { Deps } from '../../domain/deps.js';
import { getDocumentFile } from '../../domain/documents/get-document-file.js';
import { listDocuments } from '../../domain/documents/list-documents.js';
import { signatureReport } from '../../domain/documents/signature-report.js';
import { historyPdf } from '../../domain/history/history-pdf.js';
import { getStampPdf } from '../../domain/nom151/get-stamp-pdf.js';
import { listStamps } from '../../domain/nom151/list-stamps.js';
import { panelDocumentPage } from '../../domain/panel/document-page.js';
import { ErrorResponse, PdfFile } from '../../schemas/common.js';
import { DocumentListing } from '../../schemas/documents.js';
import { PanelDocumentPage, PanelDocumentQuery, PanelFileParams, PanelStampParams, PanelTicketParams } from '../../schemas/panel.js';
import { HistoryPdfQuery, SignatureReport } from '../../schemas/report.js';
import { StampList } from '../../schemas/stamps.js';
import { sessionOf } from './session-of.js';

export function panelDocumentRoutes(deps: Deps) {
  return async function routes(app: FastifyInstance) {
    documentReadRoutes(app, deps);
    downloadRoutes(app, deps);
    stampRoutes(app, deps);
  };
}

function documentReadRoutes(fastify: FastifyInstance, deps: Deps) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const list = { hide: true, querystring: PanelDocumentQuery, response: { 200: DocumentListing, '4xx': ErrorResponse } };
  app.get('/panel/api/documents', { schema: list }, async (req) =>
    listDocuments(deps, {
      accountId: sessionOf(req).account_id,
      from: req.query.from,
      to: req.query.to,
      limit: req.query.limit ?? '20',
      nextToken: req.query.nextToken,
      // An empty choice in the page's form is no filter.
      status: req.query.status || undefined,
      search: req.query.q,
    }),
  );

  const page = { hide: true, params: PanelTicketParams, response: { 200: PanelDocumentPage, '4xx': ErrorResponse } };
  app.get('/panel/api/documents/:ticket', { schema: page }, async (req) =>
    panelDocumentPage(deps, { accountId: sessionOf(req).account_id, ticket: req.params.ticket }),
  );
}

function downloadRoutes(fastify: FastifyInstance, deps: Deps) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const file = { hide: true, params: PanelFileParams, response: { 200: PdfFile, '4xx': ErrorResponse } };
  app.get('/panel/api/documents/:ticket/files/:type', { schema: file }, async (req, reply) => {
    const { ticket, type } = req.params;
    const f = await getDocumentFile(deps, { accountId: sessionOf(req).account_id, ticket, type });
    return attachment(reply, 'application/pdf', `${baseName(f.name)}-${f.type}.pdf`).send(f.bytes);
  });

  // The report as a file to save: the JSON of GET /api/report/{ticket}, indented.
  const reportFile = { description: 'the signature report', content: { 'application/json': { schema: SignatureReport } } };
  const report = { hide: true, params: PanelTicketParams, response: { 200: reportFile, '4xx': ErrorResponse } };
  app.get('/panel/api/documents/:ticket/report', { schema: report }, async (req, reply) => {
    const { ticket } = req.params;
    const r = await signatureReport(deps, { accountId: sessionOf(req).account_id, ticket });
    return attachment(reply, 'application/json; charset=utf-8', `report-${ticket}.json`).send(JSON.stringify(r, null, 2));
  });

  // In the panel's language (the page asks with `lang`), which may not be the document's.
  const history = { hide: true, params: PanelTicketParams, querystring: HistoryPdfQuery, response: { 200: PdfFile, '4xx': ErrorResponse } };
  app.get('/panel/api/documents/:ticket/history.pdf', { schema: history }, async (req, reply) => {
    const f = await historyPdf(deps, { accountId: sessionOf(req).account_id, ticket: req.params.ticket, language: req.query.lang });
    return attachment(reply, 'application/pdf', f.name).send(f.pdf);
  });
}

function stampRoutes(fastify: FastifyInstance, deps: Deps) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const list = { hide: true, params: PanelTicketParams, response: { 200: StampList, '4xx': ErrorResponse } };
  app.get('/panel/api/documents/:ticket/stamps', { schema: list }, async (req) =>
    listStamps(deps, { accountId: sessionOf(req).account_id, ticket: req.params.ticket }),
  );

  // The PDF itself rather than the API's JSON with Base64: the browser saves exactly the stamped
  // bytes, which `openssl ts -verify -data` checks against the token from the list.
  const pdf = { hide: true, params: PanelStampParams, response: { 200: PdfFile, '4xx': ErrorResponse } };
  app.get('/panel/api/documents/:ticket/stamps/:hash/pdf', { schema: pdf }, async (req, reply) => {
    const { ticket, hash } = req.params;
    const r = await getStampPdf(deps, { accountId: sessionOf(req).account_id, ticket, stampHash: hash });
    return attachment(reply, 'application/pdf', `${baseName(r.name)}-${r.rendition}-stamped-${r.hash.slice(0, 12)}.pdf`).send(
      Buffer.from(r.pdf, 'base64'),
    );
  });
}

/** A download's name: ASCII for old clients, the exact UTF-8 name in filename* (RFC 6266). */
function attachment(reply: FastifyReply, type: string, name: string): FastifyReply {
  const ascii = name.replace(/[^\x20-\x7e]/g, '_').replace(/["\\]/g, '_');
  return reply.type(type).header('content-disposition', `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(name)}`);
}

function baseName(name: string): string {
  return name.replace(/\.pdf$/i, '').slice(0, 100) || 'document';
}
