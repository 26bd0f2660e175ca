// The image jail's face readings (identity-imaging/face-descriptor.ts through jail/face-jail-worker.ts), on
// the sample photographs shipped in the face-api package (read from node_modules, not copied).
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { ImageDecodeFailure, ImageJail } from '../../src/jail/image-jail.js';
import { descriptorDistance } from '../../src/identity-imaging/face-descriptor.js';
import { readPng, writeJpeg } from '../helpers/image-ops.js';
import { testPng } from '../helpers/images.js';

// Worker threads started by the pools (in this thread): whether a face worker is kept or replaced.
const started = vi.hoisted(() => ({ workers: 0 }));
vi.mock('node:worker_threads', async (importOriginal) => {
  const mod = await importOriginal<typeof import('node:worker_threads')>();
  class CountedWorker extends mod.Worker {
    constructor(...args: ConstructorParameters<typeof mod.Worker>) {
      super(...args);
      started.workers++;
    }
  }
  return { ...mod, Worker: CountedWorker };
});

const demo = join(dirname(createRequire(import.meta.url).resolve('@vladmandic/face-api/package.json')), 'demo');
const sample = (n: number) => readFileSync(join(demo, `sample${n}.jpg`));
const jail = new ImageJail({ qualityTimeoutMs: 15_000, ocrTimeoutMs: 60_000, memoryMb: 512, faceTimeoutMs: 60_000, faceWasmMb: 768 });
afterAll(() => jail.close());

describe('faces in the image jail', () => {
  it('finds the faces of a group photo, largest first, and describes the largest in 128 numbers', async () => {
    const before = started.workers;
    const r = await jail.readFaces(sample(1));
    expect([r.width, r.height]).toEqual([1920, 1280]);
    expect(r.faces.length).toBeGreaterThanOrEqual(3);
    const areas = r.faces.map((f) => f.box.width * f.box.height);
    expect(areas).toEqual([...areas].sort((a, b) => b - a));
    for (const f of r.faces) {
      expect(f.score).toBeGreaterThanOrEqual(0.5);
      expect(f.box.x + f.box.width).toBeLessThanOrEqual(r.width);
      expect(f.box.y + f.box.height).toBeLessThanOrEqual(r.height);
    }
    expect(r.descriptor).toHaveLength(128);
    expect(r.descriptor!.every((v) => Number.isFinite(v))).toBe(true);
    // The same photo again, recompressed: the same face, nearly the same descriptor; another photo's largest face is far.
    const again = await jail.readFaces(writeJpeg(readPng(await toPng(sample(1))), 70));
    expect(descriptorDistance(r.descriptor!, again.descriptor!)).toBeLessThan(0.15);
    const other = await jail.readFaces(sample(2));
    expect(descriptorDistance(r.descriptor!, other.descriptor!)).toBeGreaterThan(0.5);
    // Under its WebAssembly memory limit, one worker read all three, its models loaded once.
    expect(started.workers - before).toBe(1);
  });

  it('a worker past its WebAssembly memory limit retires after its task, and the next task reads the same', async () => {
    // 1 MB: every task leaves the worker above it, so each task runs on a fresh worker.
    const before = started.workers;
    const small = new ImageJail({ qualityTimeoutMs: 15_000, ocrTimeoutMs: 60_000, memoryMb: 512, faceTimeoutMs: 60_000, faceWasmMb: 1 });
    try {
      const first = await small.readFaces(sample(3));
      const second = await small.readFaces(sample(3));
      expect(first.descriptor).toHaveLength(128);
      expect(second.faces).toEqual(first.faces);
      expect(descriptorDistance(first.descriptor!, second.descriptor!)).toBeLessThan(1e-6);
      expect(started.workers - before).toBe(2);
    } finally {
      await small.close();
    }
  });

  it('a photo without a face: no faces, no descriptor; what is not an image: a decode failure', async () => {
    const r = await jail.readFaces(testPng(720, 960, [230, 200, 180]));
    expect(r).toEqual({ width: 720, height: 960, faces: [] });
    await expect(jail.readFaces(Buffer.from('not an image'))).rejects.toBeInstanceOf(ImageDecodeFailure);
  });
});

/** The sample JPEG as a PNG (jpeg-js decodes, pngjs encodes): to recompress it at another quality. */
async function toPng(jpegBytes: Buffer): Promise<Buffer> {
  const { default: jpeg } = await import('jpeg-js');
  const { PNG } = await import('pngjs');
  const img = jpeg.decode(jpegBytes, { useTArray: true, formatAsRGBA: true });
  const png = new PNG({ width: img.width, height: img.height });
  png.data = Buffer.from(img.data);
  return PNG.sync.write(png);
}
