// Reading a multipart request whose signature covers the file through Content-SHA256
// (decisions.md): the header must equal Base64(SHA-256(file bytes)), or the answer is 401.
import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import { AppError } from '../domain/errors.js';
import { Unauthorized } from './auth.js';

export interface SignedUpload {
  file: Buffer;
  filename: string;
  fields: Record<string, string>;
}

export async function readSignedUpload(req: FastifyRequest): Promise<SignedUpload> {
  if (!req.isMultipart()) {
    throw new AppError('UNSUPPORTED_MEDIA_TYPE', 'expected multipart/form-data with a part named file');
  }
  let file: Buffer | undefined;
  let filename = 'document.pdf';
  const fields: Record<string, string> = {};
  for await (const part of req.parts()) {
    if (part.type === 'file') {
      if (part.fieldname !== 'file' || file) {
        await part.toBuffer();
        throw new AppError('INVALID_INPUT', 'file: exactly one file part named "file" is expected', { field: 'file' });
      }
      file = await part.toBuffer();
      filename = part.filename || filename;
    } else {
      fields[part.fieldname] = String(part.value);
    }
  }
  if (!file) {
    throw new AppError('INVALID_INPUT', 'file: required (a multipart part named "file")', { field: 'file' });
  }
  const given = Buffer.from(String(req.headers['content-sha256'] ?? ''), 'utf8');
  const actual = Buffer.from(createHash('sha256').update(file).digest('base64'), 'utf8');
  if (given.length !== actual.length || !timingSafeEqual(given, actual)) {
    throw new Unauthorized({
      reason: 'content_sha256_mismatch',
      webId: req.account?.webId,
      tried: [`Content-SHA256 of the file: ${actual.toString()}`],
    });
  }
  return { file, filename, fields };
}
