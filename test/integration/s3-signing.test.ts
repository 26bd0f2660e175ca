// The service with its blobs in an S3 bucket (a real S3-compatible server on loopback): a 6 MB
// document is created, signed through the signer page's API and downloaded; the bytes come back
// intact from the bucket, uploaded in parts, and pdfsig (poppler, NSS) judges the signature valid
// and trusted over the whole file. Nothing is written to the data directory's blobs, and the check
// of every row's blob finds the signed file once it is gone from the bucket.
import { createHash, randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { deflateSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkBlobs } from '../../src/domain/blobs/check-blobs.js';
import { imagePagesPdf } from '../helpers/compressible-pdfs.js';
import { startS3Server, type TestS3Server } from '../helpers/s3-server.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { openAndSign } from '../helpers/signer-page.js';
import { pdfsig } from '../helpers/validators.js';

let s3: TestS3Server;
let s: TestServer;
beforeAll(async () => {
  s3 = await startS3Server();
  s = await startTestServer({ env: { ...s3.env, SELLO_S3_PART_MB: '5' } });
});
afterAll(async () => {
  await s?.close();
  await s3?.stop();
});

const sha256 = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');

describe('signing with blobs in a bucket', () => {
  it('creates, signs and downloads a 6 MB document whose blobs live in the bucket', async () => {
    // One page drawing 6 MB of noise, stored (Flate level 0) so that the file stays 6 MB.
    const pdf = imagePagesPdf(1, { width: 2000, height: 3000, data: deflateSync(randomBytes(6_000_000), { level: 0 }) });
    expect(pdf.length).toBeGreaterThan(6_000_000);
    const doc = await s.client.createDocument({
      b64_doc: pdf.toString('base64'),
      name: 'Contrato grande',
      stickers: [
        { authority: 'EMAIL_LINK', data: 'ana@example.com', name: 'Ana García', page: 0, rect: { lx: 60, ly: 60, tx: 260, ty: 130 } },
      ],
    });
    expect(existsSync(s3.objectFile(sha256(pdf)))).toBe(true);

    const from = s3.requests.length;
    await openAndSign(s.baseUrl, doc.stickers[0].signer_url);
    const row = await s.deps.db
      .selectFrom('documents')
      .select(['original_sha256'])
      .where('ticket', '=', doc.document_ticket)
      .executeTakeFirstOrThrow();
    expect(row.original_sha256).not.toBe(sha256(pdf));
    // The signed file went up in parts (5 MB each): started, two parts, completed.
    const signedPath = `/${s3.bucket}/${row.original_sha256}`;
    const upload = s3.requests.slice(from).filter((r) => r.startsWith(`POST ${signedPath}?`) || r.startsWith(`PUT ${signedPath}?`));
    expect(upload[0]).toMatch(/\?uploads=?$/);
    expect(upload.filter((r) => r.includes('partNumber=')).length).toBe(2);
    expect(upload[upload.length - 1]).toMatch(/^POST .*\?uploadId=/);

    const signed = Buffer.from((await s.client.downloadDocument('original', doc.document_ticket)).bytes);
    expect(sha256(signed)).toBe(row.original_sha256);
    // An incremental update: the original bytes are the signed file's first bytes.
    expect(signed.subarray(0, pdf.length).equals(pdf)).toBe(true);
    const rootPem = await (await fetch(`${s.baseUrl}/pki/ca.pem`)).text();
    const { signatures, output } = await pdfsig(signed, rootPem);
    expect(signatures, output).toHaveLength(1);
    expect(signatures[0].valid, output).toBe(true);
    expect(signatures[0].trusted, output).toBe(true);
    expect(signatures[0].totalDocumentSigned, output).toBe(true);

    expect(existsSync(join(s.dataDir, 'blobs'))).toBe(false);

    // The check of every row's blob, in the bucket: intact; then the signed file removed, the
    // document and the revision that name it are listed.
    expect((await checkBlobs({ db: s.deps.db, blobs: s.deps.blobs })).problems).toEqual([]);
    await s.deps.blobs.delete(row.original_sha256);
    const check = await checkBlobs({ db: s.deps.db, blobs: s.deps.blobs });
    expect(check.problems).toEqual([
      {
        key: row.original_sha256,
        problem: 'missing',
        rows: expect.arrayContaining([
          { table: 'documents', column: 'original_sha256', row: `document ${doc.document_ticket}` },
          { table: 'document_revisions', column: 'sha256', row: `document ${doc.document_ticket} revision 1` },
        ]),
      },
    ]);
  });
});
