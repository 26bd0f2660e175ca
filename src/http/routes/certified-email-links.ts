// The public links inside a certified email (no HMAC: the random token is the credential): the open
// image and the document's download link. Their first use is the evidence of an open and of a
// download (domain/certified-email/record-link-visit.ts).
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Deps } from '../../domain/deps.js';
import { PIXEL_GIF, downloadCertifiedDocument, recordCertifiedOpen } from '../../domain/certified-email/record-link-visit.js';
import { CertifiedLinkParams, GifImage } from '../../schemas/certified-email.js';
import { ErrorResponse, PdfFile } from '../../schemas/common.js';

function visitor(req: FastifyRequest) {
  const ua = req.headers['user-agent'];
  return { ip: req.ip ?? null, userAgent: typeof ua === 'string' ? ua : null };
}

export function certifiedEmailLinkRoutes(deps: Deps) {
  return async function routes(fastify: FastifyInstance) {
    const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
    app.get(
      '/certified-email/open/:token',
      {
        schema: {
          operationId: 'openCertifiedEmailImage',
          security: [],
          summary: "The image in a certified email: its first load records the email's first open",
          tags: ['documents'],
          params: CertifiedLinkParams,
          response: { 200: GifImage, '4xx': ErrorResponse },
        },
      },
      async (req, reply) => {
        await recordCertifiedOpen(deps, req.params.token, visitor(req));
        // no-store: every display asks again, so a cached copy never hides the first real load.
        return reply.type('image/gif').header('cache-control', 'no-store, max-age=0').send(PIXEL_GIF);
      },
    );

    app.get(
      '/certified-email/download/:token',
      {
        schema: {
          operationId: 'downloadCertifiedEmailDocument',
          security: [],
          summary: "The PDF a certified email sent: its first download records the email's first download",
          tags: ['documents'],
          params: CertifiedLinkParams,
          response: { 200: PdfFile, '4xx': ErrorResponse },
        },
      },
      async (req, reply) => {
        const file = await downloadCertifiedDocument(deps, req.params.token, visitor(req));
        return reply
          .type('application/pdf')
          .header('content-disposition', `attachment; filename*=UTF-8''${encodeURIComponent(file.name)}`)
          .header('cache-control', 'no-store')
          .send(file.pdf);
      },
    );
  };
}
