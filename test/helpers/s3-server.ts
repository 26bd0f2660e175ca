// A real S3-compatible server on loopback for the tests: s3rver (an npm dev dependency, so the test
// command needs nothing else installed), on a free port, keeping its objects in a temporary
// directory, with one empty bucket. It refuses an unknown access key id but does not check Signature
// V4 itself (its authentication.js leaves it unimplemented): a wrong secret goes unnoticed. Any test (and any process the test starts) reaches
// it at `endpoint`; `env` is the service's configuration for it (docs/configuration.md).
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import type { IncomingHttpHeaders, IncomingMessage, Server } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** The little of s3rver's API used here (the package ships no types). */
interface S3rverInstance {
  httpServer: Server;
  run(): Promise<AddressInfo>;
  close(): Promise<void>;
}
type S3rverClass = new (options: {
  address: string;
  port: number;
  directory: string;
  silent: boolean;
  configureBuckets: { name: string }[];
}) => S3rverInstance;

export interface TestS3Server {
  /** http://127.0.0.1:PORT; buckets are addressed by path (path-style), as self-hosted servers want. */
  endpoint: string;
  bucket: string;
  region: string;
  accessKeyId: string;
  secretAccessKey: string;
  /** The service's settings for this bucket: SELLO_BLOB_STORE=s3 and the SELLO_S3_* variables. */
  env: Record<string, string>;
  /** Every request received, as "METHOD /path?query", in order (multipart uploads show their parts). */
  requests: string[];
  /** The headers of each request, at the same index as in `requests`. */
  requestHeaders: IncomingHttpHeaders[];
  /** The directory the server keeps its objects in (removed by stop()). */
  directory: string;
  /**
   * The file holding an object's bytes (s3rver's layout, stores/filesystem.js): a test may age it
   * (its mtime is the object's LastModified) or damage it behind the server's back.
   */
  objectFile(key: string): string;
  /** Stops the server and removes its objects. */
  stop(): Promise<void>;
}

export async function startS3Server(opts: { bucket?: string } = {}): Promise<TestS3Server> {
  const S3rver = createRequire(import.meta.url)('s3rver') as S3rverClass;
  const directory = await mkdtemp(join(tmpdir(), 'sello-test-s3-'));
  const bucket = opts.bucket ?? `sello-${randomBytes(4).toString('hex')}`;
  const server = new S3rver({ address: '127.0.0.1', port: 0, directory, silent: true, configureBuckets: [{ name: bucket }] });
  let address: AddressInfo;
  try {
    address = await server.run();
  } catch (err) {
    await rm(directory, { recursive: true, force: true });
    throw err;
  }
  const requests: string[] = [];
  const requestHeaders: IncomingHttpHeaders[] = [];
  server.httpServer.on('request', (req: IncomingMessage) => {
    requests.push(`${req.method} ${req.url}`);
    requestHeaders.push(req.headers);
  });
  const endpoint = `http://127.0.0.1:${address.port}`;
  // s3rver's one account (models/account.js): any other key id is refused with InvalidAccessKeyId.
  const accessKeyId = 'S3RVER';
  const secretAccessKey = 'S3RVER';
  const region = 'us-east-1';
  return {
    endpoint,
    bucket,
    region,
    accessKeyId,
    secretAccessKey,
    requests,
    requestHeaders,
    directory,
    objectFile: (key) => {
      const parts = key.split('/');
      return join(directory, bucket, ...parts.slice(0, -1), `${parts[parts.length - 1]}._S3rver_object`);
    },
    env: {
      SELLO_BLOB_STORE: 's3',
      SELLO_S3_ENDPOINT: endpoint,
      SELLO_S3_BUCKET: bucket,
      SELLO_S3_REGION: region,
      SELLO_S3_ACCESS_KEY_ID: accessKeyId,
      SELLO_S3_SECRET_ACCESS_KEY: secretAccessKey,
      SELLO_S3_FORCE_PATH_STYLE: 'true',
    },
    async stop() {
      await server.close();
      await rm(directory, { recursive: true, force: true });
    },
  };
}
