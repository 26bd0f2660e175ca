// PDF utilities on uploaded files (multipart, signed through Content-SHA256).
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import type { Deps } from '../../domain/deps.js';
import { pageData } from '../../domain/documents/page-data.js';
import { readSignedUpload } from '../multipart.js';
import { ErrorResponse, PdfFile } from '../../schemas/common.js';
import { PageDataResult, PageDataUpload, PrintUpload } from '../../schemas/documents.js';
import { flattenUpload } from '../../domain/documents/flatten-upload.js';

export function pdfToolRoutes(deps: Deps) {
  return async function routes(fastify: FastifyInstance) {
    const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
    app.post(
      '/api/pdf/pageData',
      {
        schema: {
          operationId: 'getPdfPageData',
          summary: 'Size and rotation of one page of an uploaded PDF',
          description:
            'multipart/form-data with a part `file` (the PDF) and a field `page` (0-based, default 0). ' +
            'The signature is over the `Content-SHA256` header: Base64 of the SHA-256 of the file.',
          tags: ['pdf'],
          security: [{ hmac: [] }],
          consumes: ['multipart/form-data'],
          body: PageDataUpload,
          response: { 200: PageDataResult, '4xx': ErrorResponse },
        },
      },
      async (req) => {
        const upload = await readSignedUpload(req);
        return pageData(deps, { bytes: upload.file, page: upload.fields.page });
      },
    );

    app.post(
      '/api/print',
      {
        schema: {
          operationId: 'flattenPdf',
          summary: 'Flatten a PDF: form fields and annotations drawn into the pages, nothing interactive left',
          description:
            'multipart/form-data with a part `file` (the PDF). The answer is the flattened PDF itself (application/pdf), ' +
            'a new file: signatures in the input do not survive. The signature is over the `Content-SHA256` header.',
          tags: ['pdf'],
          security: [{ hmac: [] }],
          consumes: ['multipart/form-data'],
          body: PrintUpload,
          response: { 200: PdfFile, '4xx': ErrorResponse },
        },
      },
      async (req, reply) => {
        const upload = await readSignedUpload(req);
        const pdf = await flattenUpload(deps, { bytes: upload.file });
        return reply.type('application/pdf').header('content-disposition', 'attachment; filename="print.pdf"').send(pdf);
      },
    );
  };
}
