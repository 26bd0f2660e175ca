// SELLO_BLOB_STORE and SELLO_S3_*: files by default with nothing to set, a bucket with every bad
// variable listed at once, and no S3 variable taken silently while blobs stay in files.
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';

function problems(env: Record<string, string>): string[] {
  try {
    loadConfig(env);
  } catch (err) {
    if (err instanceof ConfigError) {
      return err.problems;
    }
    throw err;
  }
  return [];
}

describe('blob store settings', () => {
  it('keeps blobs in the data directory when nothing is set', () => {
    expect(loadConfig({}).blobs).toEqual({ kind: 'fs' });
  });

  it('reads a bucket with its defaults', () => {
    const c = loadConfig({ SELLO_BLOB_STORE: 's3', SELLO_S3_BUCKET: 'sello-blobs' });
    expect(c.blobs).toEqual({
      kind: 's3',
      s3: {
        endpoint: undefined,
        region: 'us-east-1',
        bucket: 'sello-blobs',
        prefix: '',
        credentials: undefined,
        forcePathStyle: false,
        partBytes: 8 * 1024 * 1024,
      },
    });
  });

  it('reads a self-hosted server', () => {
    const c = loadConfig({
      SELLO_BLOB_STORE: 's3',
      SELLO_S3_ENDPOINT: 'https://minio.internal:9000/',
      SELLO_S3_BUCKET: 'docs',
      SELLO_S3_REGION: 'eu-west-3',
      SELLO_S3_PREFIX: 'sello/blobs/',
      SELLO_S3_ACCESS_KEY_ID: 'id',
      SELLO_S3_SECRET_ACCESS_KEY: 'secret',
      SELLO_S3_FORCE_PATH_STYLE: 'true',
      SELLO_S3_PART_MB: '16',
    });
    expect(c.blobs).toEqual({
      kind: 's3',
      s3: {
        endpoint: 'https://minio.internal:9000',
        region: 'eu-west-3',
        bucket: 'docs',
        prefix: 'sello/blobs/',
        credentials: { accessKeyId: 'id', secretAccessKey: 'secret' },
        forcePathStyle: true,
        partBytes: 16 * 1024 * 1024,
      },
    });
  });

  it('lists every bad S3 variable at once', () => {
    const found = problems({
      SELLO_BLOB_STORE: 's3',
      SELLO_S3_ENDPOINT: 'ftp://x',
      SELLO_S3_REGION: 'EU West',
      SELLO_S3_PREFIX: '/lead',
      SELLO_S3_ACCESS_KEY_ID: 'only-the-id',
      SELLO_S3_FORCE_PATH_STYLE: 'maybe',
      SELLO_S3_PART_MB: '4',
    });
    expect(found.map((p) => p.split(/[=:]/)[0])).toEqual([
      'SELLO_S3_BUCKET',
      'SELLO_S3_ENDPOINT',
      'SELLO_S3_REGION',
      'SELLO_S3_PREFIX',
      'SELLO_S3_ACCESS_KEY_ID and SELLO_S3_SECRET_ACCESS_KEY',
      'SELLO_S3_FORCE_PATH_STYLE',
      'SELLO_S3_PART_MB',
    ]);
    expect(problems({ SELLO_BLOB_STORE: 's3', SELLO_S3_BUCKET: 'No_Such' })).toEqual([
      'SELLO_S3_BUCKET="No_Such": expected a bucket name (3 to 63 lower-case letters, digits, dots and hyphens)',
    ]);
  });

  it('refuses an unknown store and S3 variables while blobs stay in files', () => {
    expect(problems({ SELLO_BLOB_STORE: 'gcs' })).toEqual(['SELLO_BLOB_STORE="gcs": expected fs or s3']);
    expect(problems({ SELLO_S3_BUCKET: 'sello-blobs', SELLO_S3_REGION: 'us-east-1' })).toEqual([
      'SELLO_S3_BUCKET, SELLO_S3_REGION: set only with SELLO_BLOB_STORE=s3',
    ]);
  });
});
