// Public download links of conclusion emails (no HMAC: the link's token is the credential).
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import type { Deps } from '../../domain/deps.js';
import { openDownloadLink } from '../../domain/workflows/open-download-link.js';
import { ErrorResponse, PdfFile } from '../../schemas/common.js';
import { DownloadLinkParams } from '../../schemas/workflows.js';

export function downloadLinkRoutes(deps: Deps) {
  return async function routes(fastify: FastifyInstance) {
    const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
    app.get(
      '/download/:token',
      {
        schema: {
          operationId: 'downloadSignedPdf',
          security: [],
          summary: 'The signed PDF of a conclusion email whose attachment was over the size limit',
          tags: ['workflows'],
          params: DownloadLinkParams,
          response: { 200: PdfFile, '4xx': ErrorResponse },
        },
      },
      async (req, reply) => {
        const file = await openDownloadLink(deps, req.params.token);
        const name = /\.pdf$/i.test(file.name) ? file.name : `${file.name}.pdf`;
        return reply
          .type('application/pdf')
          .header('content-disposition', `attachment; filename*=UTF-8''${encodeURIComponent(name)}`)
          .header('cache-control', 'no-store')
          .send(file.pdf);
      },
    );
  };
}
