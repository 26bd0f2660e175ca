// The panel's documents: the list (search, state, dates, pages), one document (its signers, and its
// history with the chain's check and the signers' names), its downloads, and its NOM-151 stamps
// with the exact bytes each covers (GET /api/document/{ticket}/stamps and
// .../stamp/{stampHash}/pdf). Each calls the use case the HMAC API calls, with the session's
// account.
import { type Static, Type } from '@sinclair/typebox';
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { Deps } from '../../domain/deps.js';
import { getDocumentFile } from '../../domain/documents/get-document-file.js';
import { findListedDocument, listDocuments } from '../../domain/documents/list-documents.js';
import { signatureReport } from '../../domain/documents/signature-report.js';
import { getHistory } from '../../domain/history/get-history.js';
import { historyPdf } from '../../domain/history/history-pdf.js';
import { historyPeople } from '../../domain/history/history-people.js';
import { getStampPdf } from '../../domain/nom151/get-stamp-pdf.js';
import { listStamps } from '../../domain/nom151/list-stamps.js';
import { HistoryPdfQuery } from '../../schemas/report.js';
import { findFlowDocument } from '../../store/workflow-repo.js';
import { sessionOf } from './session-of.js';

const ListQuery = Type.Object({
  q: Type.Optional(Type.String({ maxLength: 200, description: "text in the document's name or a signer's name or email" })),
  status: Type.Optional(Type.String()),
  from: Type.Optional(Type.String({ description: 'epoch milliseconds, inclusive' })),
  to: Type.Optional(Type.String({ description: 'epoch milliseconds, inclusive' })),
  limit: Type.Optional(Type.String()),
  nextToken: Type.Optional(Type.String()),
});
const TicketParams = Type.Object({ ticket: Type.String() });
const FileParams = Type.Object({ ticket: Type.String(), type: Type.String() });
const StampParams = Type.Object({ ticket: Type.String(), hash: Type.String() });

export function panelDocumentRoutes(deps: Deps) {
  return async function routes(app: FastifyInstance) {
    app.get('/panel/api/documents', { schema: { hide: true, querystring: ListQuery } }, async (req) => {
      const q = req.query as Record<string, string | undefined>;
      return listDocuments(deps, {
        accountId: sessionOf(req).account_id,
        from: q.from,
        to: q.to,
        limit: q.limit ?? '20',
        nextToken: q.nextToken,
        status: q.status || undefined,
        search: q.q,
      });
    });

    app.get('/panel/api/documents/:ticket', { schema: { hide: true, params: TicketParams } }, async (req) => {
      const accountId = sessionOf(req).account_id;
      const { ticket } = req.params as { ticket: string };
      const document = await findListedDocument(deps, { accountId, ticket });
      const history = await getHistory(deps, { accountId, ticket });
      // What the page's actions need: whether the service runs the flow, and until when; the
      // account's time zone, the one an expiration date is the end of a day in.
      const flow = (await findFlowDocument(deps.db, { accountId, ticket }))!;
      const workflow = {
        started: flow.flow_started_at !== null,
        in_set: flow.set_id !== null,
        expires_at: flow.expires_at?.toISOString() ?? null,
        time_zone: flow.time_zone,
      };
      // The timeline names signers as the history PDF does, not by their ids.
      const people = Object.fromEntries(await historyPeople(deps.db, flow.id));
      return { document, history, workflow, people };
    });

    app.get('/panel/api/documents/:ticket/files/:type', { schema: { hide: true, params: FileParams } }, async (req, reply) => {
      const { ticket, type } = req.params as { ticket: string; type: string };
      const file = await getDocumentFile(deps, { accountId: sessionOf(req).account_id, ticket, type });
      return attachment(reply, 'application/pdf', `${baseName(file.name)}-${file.type}.pdf`).send(file.bytes);
    });

    app.get('/panel/api/documents/:ticket/report', { schema: { hide: true, params: TicketParams } }, async (req, reply) => {
      const { ticket } = req.params as { ticket: string };
      const report = await signatureReport(deps, { accountId: sessionOf(req).account_id, ticket });
      return attachment(reply, 'application/json; charset=utf-8', `report-${ticket}.json`).send(JSON.stringify(report, null, 2));
    });

    // In the panel's language (the page asks with `lang`), which may not be the document's.
    const historySchema = { hide: true, params: TicketParams, querystring: HistoryPdfQuery };
    app.get('/panel/api/documents/:ticket/history.pdf', { schema: historySchema }, async (req, reply) => {
      const { ticket } = req.params as { ticket: string };
      const language = (req.query as Static<typeof HistoryPdfQuery>).lang;
      const file = await historyPdf(deps, { accountId: sessionOf(req).account_id, ticket, language });
      return attachment(reply, 'application/pdf', file.name).send(file.pdf);
    });

    app.get('/panel/api/documents/:ticket/stamps', { schema: { hide: true, params: TicketParams } }, async (req) =>
      listStamps(deps, { accountId: sessionOf(req).account_id, ticket: (req.params as { ticket: string }).ticket }),
    );

    // The PDF itself rather than the API's JSON with Base64: the browser saves exactly the stamped
    // bytes, which `openssl ts -verify -data` checks against the token from the list.
    app.get('/panel/api/documents/:ticket/stamps/:hash/pdf', { schema: { hide: true, params: StampParams } }, async (req, reply) => {
      const { ticket, hash } = req.params as { ticket: string; hash: string };
      const r = await getStampPdf(deps, { accountId: sessionOf(req).account_id, ticket, stampHash: hash });
      return attachment(reply, 'application/pdf', `${baseName(r.name)}-${r.rendition}-stamped-${r.hash.slice(0, 12)}.pdf`).send(
        Buffer.from(r.pdf, 'base64'),
      );
    });
  };
}

/** A download's name: ASCII for old clients, the exact UTF-8 name in filename* (RFC 6266). */
function attachment(reply: FastifyReply, type: string, name: string): FastifyReply {
  const ascii = name.replace(/[^\x20-\x7e]/g, '_').replace(/["\\]/g, '_');
  return reply.type(type).header('content-disposition', `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(name)}`);
}

function baseName(name: string): string {
  return name.replace(/\.pdf$/i, '').slice(0, 100) || 'document';
}
