// The loopback S3 server the tests use, driven by the AWS SDK the service ships: objects go in and
// come out intact (one in parts), the object file is where the helper says, and an unknown access key
// is refused (s3rver does not check the Signature V4 itself: a wrong secret would pass).
import { createHash, randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { GetObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startS3Server, type TestS3Server } from '../helpers/s3-server.js';

let s3: TestS3Server;
beforeAll(async () => {
  s3 = await startS3Server();
});
afterAll(async () => {
  await s3?.stop();
});

const client = (accessKeyId: string) =>
  new S3Client({
    endpoint: s3.endpoint,
    region: s3.region,
    forcePathStyle: true,
    credentials: { accessKeyId, secretAccessKey: s3.secretAccessKey },
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  });
const sha256 = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');

describe('the test S3 server', () => {
  it('stores and returns an object, and a 12 MB one uploaded in three parts', async () => {
    const c = client(s3.accessKeyId);
    await c.send(new PutObjectCommand({ Bucket: s3.bucket, Key: 'a/small', Body: Buffer.from('hello') }));
    const small = await c.send(new GetObjectCommand({ Bucket: s3.bucket, Key: 'a/small' }));
    expect(Buffer.from(await small.Body!.transformToByteArray()).toString()).toBe('hello');
    expect((await readFile(s3.objectFile('a/small'))).toString()).toBe('hello');

    const big = randomBytes(12 * 1024 * 1024);
    const parts: number[] = [];
    const upload = new Upload({ client: c, params: { Bucket: s3.bucket, Key: 'big', Body: big }, partSize: 5 * 1024 * 1024 });
    upload.on('httpUploadProgress', (p) => parts.push(p.part ?? 0));
    await upload.done();
    expect(new Set(parts)).toEqual(new Set([1, 2, 3]));
    const got = await c.send(new GetObjectCommand({ Bucket: s3.bucket, Key: 'big' }));
    expect(sha256(await got.Body!.transformToByteArray())).toBe(sha256(big));
  });

  it('refuses an unknown access key', async () => {
    await expect(
      client('NOT-A-KEY').send(new PutObjectCommand({ Bucket: s3.bucket, Key: 'x', Body: Buffer.from('x') })),
    ).rejects.toMatchObject({ name: 'InvalidAccessKeyId' });
  });
});
