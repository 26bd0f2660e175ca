// The face and zone readers are an optional part of the install (identity-imaging/optional-readers.ts):
// on a server without them the image jail still measures photographs, and refuses the readings
// with a reason that says what is missing, without starting a worker that would fail to load them.
import { afterAll, describe, expect, it, vi } from 'vitest';
import {
  FACE_NOT_INSTALLED,
  installedReaders,
  missingReadersLine,
  OCR_NOT_INSTALLED,
  ReaderNotInstalledError,
} from '../../src/identity-imaging/optional-readers.js';
import { ImageJail } from '../../src/jail/image-jail.js';
import { testPng } from '../helpers/images.js';

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

const limits = { qualityTimeoutMs: 15_000, ocrTimeoutMs: 60_000, memoryMb: 512, faceTimeoutMs: 60_000, faceWasmMb: 768 };
const light = new ImageJail(limits, { face: false, ocr: false });
afterAll(() => light.close());

describe('identity readers as an optional part', () => {
  it('the full install (the one the tests run on) has both readers', () => {
    expect(installedReaders()).toEqual({ face: true, ocr: true });
    expect(new ImageJail(limits).installed).toEqual({ face: true, ocr: true });
    expect(missingReadersLine({ face: true, ocr: true })).toBeUndefined();
  });

  it('without them: a photograph is still measured; the readings are refused, saying what is not installed, no worker started', async () => {
    const before = started.workers;
    await expect(light.readFaces(testPng(640, 480))).rejects.toThrow(new ReaderNotInstalledError(FACE_NOT_INSTALLED));
    await expect(light.readMrz(testPng(640, 480))).rejects.toThrow(new ReaderNotInstalledError(OCR_NOT_INSTALLED));
    expect(started.workers).toBe(before);
    const q = await light.measure(testPng(640, 480));
    expect(q).toMatchObject({ width: 640, height: 480, sharpness: expect.any(Number) });
    expect(started.workers).toBe(before + 1);
  });

  it('the start-up line names what is missing and what follows', () => {
    expect(missingReadersLine({ face: false, ocr: false })).toBe(
      "Identity checks: reading of the document's machine-readable zone (and so the name and expiry checks) and face comparison " +
        'not installed (light install: npm ci --omit=peer); those checks say not_checked and every identity review waits for a person.',
    );
    expect(missingReadersLine({ face: false, ocr: true })).toMatch(/^Identity checks: face comparison not installed/);
  });
});
