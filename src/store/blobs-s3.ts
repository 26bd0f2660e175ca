// Blobs in an S3-compatible bucket (AWS S3, MinIO, Ceph RGW, Garage...), for processes on many
// nodes that share no file system. The contract is the filesystem store's (blobs.ts): the key is
// the SHA-256 of the bytes, and put() resolves only once the server has answered the upload, which
// S3 does after storing the object durably, so the row naming a blob never commits before it.
// Each blob is the object PREFIX + key, with nothing else in its metadata.
import type { Readable } from 'node:stream';
import { DeleteObjectCommand, GetObjectCommand, HeadObjectCommand, ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import type { S3Settings } from '../config.js';
import { BlobNotFoundError, sha256Hex, type BlobEntry, type BlobStore } from './blobs.js';

export interface S3BlobStore extends BlobStore {
  /**
   * Uploads a stream under a key its caller computed (copying from another store); nothing here
   * checks the bytes against the key, so the caller reads them back to check.
   */
  putStream(key: string, body: Readable): Promise<void>;
  /** Where the blobs are, for messages: s3://bucket/prefix. */
  readonly location: string;
  close(): void;
}

/** Upload parts in flight at once: the memory a large upload holds is about this many parts. */
const PARTS_IN_FLIGHT = 4;

export function createS3BlobStore(settings: S3Settings): S3BlobStore {
  const client = new S3Client({
    endpoint: settings.endpoint,
    region: settings.region,
    forcePathStyle: settings.forcePathStyle,
    credentials: settings.credentials,
    // Checksums only where an operation requires them, as the SDK did before 3.729. Its default
    // now adds a CRC32 to every upload and part (x-amz-checksum-crc32, x-amz-sdk-checksum-algorithm)
    // and sends a streamed body in aws-chunked encoding with the checksum as a trailer: S3-compatible
    // servers that predate these refuse the request, or store the encoding's framing as the object
    // (s3rver does). Integrity needs no help from the server: the key is the SHA-256 of the bytes,
    // and `sello blobs check` and `sello blobs migrate` hash what they read back.
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  });
  const { bucket, prefix } = settings;
  const objectKey = (key: string) => {
    if (!/^[0-9a-f]{64}$/.test(key)) {
      throw new Error('invalid blob key');
    }
    return prefix + key;
  };
  const upload = async (key: string, body: Uint8Array | Readable) => {
    // One PutObject when the body fits in a part, else a multipart upload of partBytes parts (sent
    // as views of the caller's bytes, not copies); a failed one is aborted, leaving no parts behind.
    await new Upload({
      client,
      params: { Bucket: bucket, Key: objectKey(key), Body: body, ContentType: 'application/octet-stream' },
      partSize: settings.partBytes,
      queueSize: PARTS_IN_FLIGHT,
      leavePartsOnError: false,
    }).done();
  };
  const fetch = async (key: string) => {
    try {
      return await client.send(new GetObjectCommand({ Bucket: bucket, Key: objectKey(key) }));
    } catch (err) {
      if (isNotFound(err)) {
        throw new BlobNotFoundError(`blob ${key} not found`);
      }
      throw err;
    }
  };
  return {
    location: `s3://${bucket}/${prefix}`,
    async put(bytes) {
      const key = sha256Hex(bytes);
      // Written even when already there: S3 has no "touch", and the orphan sweep judges a blob by
      // its LastModified, which a row about to name these bytes must refresh. A copy of the object
      // onto itself would spare the upload on AWS, but not every server gives the copy a new time
      // (s3rver keeps the old one), and a sweep would then remove bytes a new row names.
      await upload(key, bytes);
      return key;
    },
    putStream: upload,
    async get(key, opts) {
      const r = await fetch(key);
      // Into one buffer of the announced size, filled chunk by chunk: the bytes are held once,
      // not once as chunks and again as their concatenation.
      return readExactly(r.Body as Readable, r.ContentLength, key, opts?.shared === true);
    },
    async stream(key) {
      return (await fetch(key)).Body as Readable;
    },
    async has(key) {
      try {
        await client.send(new HeadObjectCommand({ Bucket: bucket, Key: objectKey(key) }));
        return true;
      } catch (err) {
        if (isNotFound(err)) {
          return false;
        }
        throw err;
      }
    },
    list: () => listObjects(client, bucket, prefix),
    async delete(key) {
      // S3 answers 204 whether or not the object existed.
      await client.send(new DeleteObjectCommand({ Bucket: bucket, Key: objectKey(key) }));
    },
    close: () => client.destroy(),
  };
}

/** Every blob under the prefix, a page (up to 1,000 keys) at a time; other objects are skipped. */
async function* listObjects(client: S3Client, bucket: string, prefix: string): AsyncIterable<BlobEntry> {
  let token: string | undefined;
  do {
    const page = await client.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: prefix || undefined, ContinuationToken: token }));
    for (const o of page.Contents ?? []) {
      const key = o.Key?.slice(prefix.length) ?? '';
      if (/^[0-9a-f]{64}$/.test(key) && o.LastModified) {
        yield { key, size: o.Size ?? 0, writtenAt: o.LastModified };
      }
    }
    token = page.IsTruncated ? page.NextContinuationToken : undefined;
  } while (token);
}

async function readExactly(body: Readable, length: number | undefined, key: string, shared: boolean): Promise<Buffer> {
  if (length === undefined) {
    throw new Error(`blob ${key}: the server did not say its length`);
  }
  // Shared memory for a file only the PDF jail's workers read (blobs.ts, BlobStore.get).
  const out = shared ? Buffer.from(new SharedArrayBuffer(length)) : Buffer.allocUnsafeSlow(length);
  let at = 0;
  for await (const chunk of body as AsyncIterable<Buffer>) {
    if (at + chunk.length > length) {
      body.destroy();
      throw new Error(`blob ${key}: more than the ${length} bytes announced`);
    }
    chunk.copy(out, at);
    at += chunk.length;
  }
  if (at !== length) {
    throw new Error(`blob ${key}: ended after ${at} of ${length} bytes`);
  }
  return out;
}

function isNotFound(err: unknown): boolean {
  const e = err as { name?: string; $metadata?: { httpStatusCode?: number } };
  return e.name === 'NoSuchKey' || e.name === 'NotFound' || e.$metadata?.httpStatusCode === 404;
}
