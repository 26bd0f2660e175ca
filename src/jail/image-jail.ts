// The image jail: identity evidence photographs are decoded, measured and read (OCR) in worker
// threads with a heap limit and a time limit, never on the main thread. A photograph is a
// stranger's file given to a decoder; a crafted one can make a decoder allocate or loop, and OCR
// is seconds of CPU: on the main thread either would stall every request of the process. A task
// past its limits is stopped with its worker (ImageTooComplexError) and the next one gets a fresh
// worker. OCR has its own pool, so a queue of slow readings never delays a signer's capture; faces
// have theirs too (face-jail-worker.ts), whose worker keeps the face models loaded between tasks.
import type { DecodeProblem } from '../identity-imaging/decode-image.js';
import type { QualityMeasures } from '../identity-imaging/image-quality.js';
import type { FaceReading } from '../identity-imaging/face-descriptor.js';
import type { MrzOcrResult } from '../identity-imaging/mrz-ocr.js';
import {
  FACE_NOT_INSTALLED,
  type IdentityReaders,
  installedReaders,
  OCR_NOT_INSTALLED,
  ReaderNotInstalledError,
} from '../identity-imaging/optional-readers.js';
import { PoolBusyError, WorkerLimitError, WorkerPool, WorkerTaskError, workerModule } from './worker-pool.js';

export interface ImageJailOptions {
  /** Longest the decoding and measuring of one capture may take. */
  qualityTimeoutMs: number;
  /** Longest the reading of one document's zone may take (both orientations). */
  ocrTimeoutMs: number;
  /** Heap limit of each worker (V8 old generation), in MB. */
  memoryMb: number;
  /** Longest finding and describing the faces of one photograph may take. */
  faceTimeoutMs: number;
  /**
   * WebAssembly memory of the face worker, in MB, past which it is replaced after its task: that
   * memory is outside the heap limit, and only grows (identity-imaging/face-descriptor.ts).
   */
  faceWasmMb: number;
}

export interface ImageQuality extends QualityMeasures {
  width: number;
  height: number;
}

/** The photograph cannot be decoded (not an image, a format not checked, too large). */
export class ImageDecodeFailure extends Error {
  override name = 'ImageDecodeFailure';
  constructor(
    readonly problem: DecodeProblem,
    message: string,
  ) {
    super(message);
  }
}

/** Decoding or reading passed a limit (time, memory) and was stopped. */
export class ImageTooComplexError extends Error {
  override name = 'ImageTooComplexError';
}

/** Every worker is busy and the queue is full: retry shortly. */
export class ImageJailBusyError extends Error {
  override name = 'ImageJailBusyError';
}

const entry = workerModule('image-jail-worker', import.meta.url);
const faceEntry = workerModule('face-jail-worker', import.meta.url);

export class ImageJail {
  private readonly quality: WorkerPool;
  private readonly ocr: WorkerPool;
  private readonly face: WorkerPool;

  /** The optional readers this server has (identity-imaging/optional-readers.ts); without one, its task is refused, no worker started. */
  readonly installed: IdentityReaders;

  constructor(
    private readonly opts: ImageJailOptions,
    installed: IdentityReaders = installedReaders(),
  ) {
    this.installed = installed;
    const resourceLimits = {
      maxOldGenerationSizeMb: opts.memoryMb,
      maxYoungGenerationSizeMb: Math.min(32, Math.max(4, opts.memoryMb / 8)),
    };
    this.quality = new WorkerPool({ entry, size: 1, maxQueue: 16, timeoutMs: opts.qualityTimeoutMs, resourceLimits });
    // One reader: OCR is CPU-bound, and a second one on a small server would only slow both.
    this.ocr = new WorkerPool({ entry, size: 1, maxQueue: 64, timeoutMs: opts.ocrTimeoutMs, resourceLimits });
    // One face reader: each holds ~300 MB of WebAssembly memory besides its heap.
    this.face = new WorkerPool({ entry: faceEntry, size: 1, maxQueue: 64, timeoutMs: opts.faceTimeoutMs, resourceLimits });
  }

  /** Size, sharpness, glare and brightness of a photograph (identity-imaging/image-quality.ts). */
  measure(bytes: Uint8Array): Promise<ImageQuality> {
    return this.run(this.quality, 'quality', bytes, this.opts.qualityTimeoutMs);
  }

  /** The machine-readable zone of a document photograph, if one can be read (identity-imaging/mrz-ocr.ts). */
  readMrz(bytes: Uint8Array): Promise<MrzOcrResult> {
    if (!this.installed.ocr) {
      return Promise.reject(new ReaderNotInstalledError(OCR_NOT_INSTALLED));
    }
    return this.run(this.ocr, 'readMrz', bytes, this.opts.ocrTimeoutMs);
  }

  /**
   * The faces of a photograph, largest first, and the descriptor of the largest
   * (identity-imaging/face-descriptor.ts). The descriptor is biometric data: compared, never stored or logged.
   */
  readFaces(bytes: Uint8Array): Promise<FaceReading> {
    if (!this.installed.face) {
      return Promise.reject(new ReaderNotInstalledError(FACE_NOT_INSTALLED));
    }
    return this.run(this.face, 'faces', bytes, this.opts.faceTimeoutMs, { wasmLimitMb: this.opts.faceWasmMb });
  }

  async close(): Promise<void> {
    await Promise.all([this.quality.close(), this.ocr.close(), this.face.close()]);
  }

  private async run<T>(pool: WorkerPool, task: string, bytes: Uint8Array, timeoutMs: number, extra: object = {}): Promise<T> {
    try {
      return await pool.run<T>(task, { bytes, ...extra });
    } catch (err) {
      if (err instanceof WorkerLimitError) {
        const what =
          err.limit === 'time' ? `took longer than ${timeoutMs / 1000} s` : `needed more than ${this.opts.memoryMb} MB of memory`;
        throw new ImageTooComplexError(`reading the image ${what} and was stopped`);
      }
      if (err instanceof PoolBusyError) {
        throw new ImageJailBusyError('every image reader is busy; retry shortly');
      }
      if (err instanceof WorkerTaskError && err.failure.data?.kind === 'decode') {
        throw new ImageDecodeFailure(err.failure.data.problem as DecodeProblem, err.failure.message);
      }
      throw err;
    }
  }
}
