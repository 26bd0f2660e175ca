// GET /api/certifiedEmail/{ticket}/data and /evidence: a document's certified email with its
// evidence, as JSON or as a PDF sealed by the service.
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import type { Deps } from '../../domain/deps.js';
import { certifiedEmailEvidencePdf } from '../../domain/certified-email/evidence-pdf.js';
import { getCertifiedEmailData } from '../../domain/certified-email/get-certified-email-data.js';
import { CertifiedEmailData, CertifiedEmailParams } from '../../schemas/certified-email.js';
import { ErrorResponse, PdfFile } from '../../schemas/common.js';

export function certifiedEmailRoutes(deps: Deps) {
  return async function routes(fastify: FastifyInstance) {
    const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
    app.get(
      '/api/certifiedEmail/:ticket/data',
      {
        schema: {
          operationId: 'getCertifiedEmailData',
          summary: 'The certified email of a document and its evidence',
          description:
            'Recipient, subject, message, the SHA-256 of the message as sent, when the SMTP server accepted it and its reply, ' +
            'delivery-status notifications, the first open seen through the image and, apart, the first download through the link. ' +
            'Times are absent until known. A document without certified email, or of another account: 404 CERTIFIED_EMAIL_NOT_FOUND.',
          tags: ['documents'],
          security: [{ hmac: [] }],
          params: CertifiedEmailParams,
          response: { 200: CertifiedEmailData, '4xx': ErrorResponse },
        },
      },
      async (req) => getCertifiedEmailData(deps, { accountId: req.account!.id, ticket: req.params.ticket }),
    );

    app.get(
      '/api/certifiedEmail/:ticket/evidence',
      {
        schema: {
          operationId: 'getCertifiedEmailEvidence',
          summary: 'The certified email evidence as a PDF sealed by the service',
          description:
            "Everything the data operation answers, as a readable PDF in the document's language, sealed by the service with a " +
            'PAdES B-T signature that pdfsig can check offline, and NOM-151 stamped when the document is (one stamp per new issue).',
          tags: ['documents'],
          security: [{ hmac: [] }],
          params: CertifiedEmailParams,
          response: { 200: PdfFile, '4xx': ErrorResponse },
        },
      },
      async (req, reply) => {
        const file = await certifiedEmailEvidencePdf(deps, { accountId: req.account!.id, ticket: req.params.ticket });
        return reply.type('application/pdf').header('content-disposition', `attachment; filename="${file.name}"`).send(file.pdf);
      },
    );
  };
}
