// The blob store the configuration names: files under the data directory (the default: one
// process, nothing to set up), or an S3-compatible bucket (SELLO_BLOB_STORE=s3), which processes
// on many nodes share. The AWS SDK is loaded only for the bucket: a start on files does not wait
// for its modules.
import { join } from 'node:path';
import type { Config, S3Settings } from '../config.js';
import { createFsBlobStore, type BlobStore } from './blobs.js';
import type { S3BlobStore } from './blobs-s3.js';

export interface OpenedBlobStore {
  blobs: BlobStore;
  /** Where the blobs are, for messages: a directory, or s3://bucket/prefix. */
  location: string;
  /** Releases the bucket's connections (nothing to do for files). */
  close(): void;
}

/** The directory of the filesystem store, also the source of `sello blobs migrate`. */
export const fsBlobRoot = (dataDir: string) => join(dataDir, 'blobs');

export async function openBlobStore(config: Pick<Config, 'blobs' | 'dataDir'>): Promise<OpenedBlobStore> {
  if (config.blobs.kind === 's3') {
    const s3 = await openS3BlobStore(config.blobs.s3);
    return { blobs: s3, location: s3.location, close: () => s3.close() };
  }
  const root = fsBlobRoot(config.dataDir);
  return { blobs: createFsBlobStore(root), location: root, close: () => undefined };
}

export async function openS3BlobStore(settings: S3Settings): Promise<S3BlobStore> {
  const { createS3BlobStore } = await import('./blobs-s3.js');
  return createS3BlobStore(settings);
}
