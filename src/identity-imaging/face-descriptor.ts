// Faces of a photograph and the descriptor of the largest one, for the `face` identity check:
// @vladmandic/face-api's models (SSD MobileNet v1 to find faces, the 68-point landmarks to align
// them, a ResNet-34-like network to describe them in 128 numbers), run by TensorFlow.js on its
// WebAssembly backend. Two photographs of the same person give descriptors close together
// (Euclidean distance), of different people far apart: domain/identity/face-match.ts judges.
//
// Everything is loaded from node_modules: the models from the package's model/ folder and the
// backend's .wasm from its dist/ folder (in Node, Emscripten reads a path with fs; nothing is
// fetched). Loaded once per worker thread (jail/face-jail-worker.ts), kept between tasks.
//
// The WebAssembly memory of the backend lies outside V8's heap, so a worker's resourceLimits do
// not bound it; it only grows (to 4 GB at most). What bounds it: the image is brought to
// FACE_MAX_SIDE px before the model sees it, so a task's tensors have a fixed largest size, and
// wasmBytes() lets the worker retire itself once the memory grew past the configured limit.
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type * as FaceApi from '@vladmandic/face-api/dist/face-api.node-wasm.js';
import type { RgbImage } from './decode-image.js';

const require = createRequire(import.meta.url);

/** Longer side, in px, the model is given: a portrait on a card photographed at this size is ~300 px tall. */
export const FACE_MAX_SIDE = 1280;

/** Least detection score of a face counted (the package's default is 0.5). */
export const FACE_MIN_SCORE = 0.5;

/** Margin added on each side, as a share of the longer side, when a first look found no face. */
const PAD_SHARE = 0.4;

/** Most faces detected in one photograph: a descriptor is computed for each. */
const MAX_FACES = 5;

export interface FoundFace {
  /** In pixels of the upright image as given (before bringing it to FACE_MAX_SIDE). */
  box: { x: number; y: number; width: number; height: number };
  score: number;
}

export interface FaceReading {
  /** The image's size (upright, as given). */
  width: number;
  height: number;
  /** Largest first. */
  faces: FoundFace[];
  /** The 128 numbers describing the largest face; absent when there is none. Biometric: never stored or logged. */
  descriptor?: number[];
}

type FaceApiModule = typeof FaceApi;
let loaded: Promise<FaceApiModule> | undefined;

/** Loads the backend and the three models once. */
export function loadFaceModels(): Promise<FaceApiModule> {
  loaded ??= (async () => {
    const faceapi = require('@vladmandic/face-api/dist/face-api.node-wasm.js') as FaceApiModule;
    const wasm = require('@tensorflow/tfjs-backend-wasm') as { setWasmPaths(prefix: string, usePlatformFetch?: boolean): void };
    const tf = faceapi.tf as unknown as {
      enableProdMode(): void;
      setBackend(name: string): Promise<boolean>;
      ready(): Promise<void>;
      getBackend(): string;
    };
    // Without the platform's fetch, Emscripten reads the .wasm with fs (Node), from this folder.
    wasm.setWasmPaths(`${join(dirname(require.resolve('@tensorflow/tfjs-backend-wasm/package.json')), 'dist')}/`, false);
    tf.enableProdMode();
    if (!(await tf.setBackend('wasm'))) {
      throw new Error('the WebAssembly backend of TensorFlow.js did not start');
    }
    await tf.ready();
    const models = join(dirname(require.resolve('@vladmandic/face-api/package.json')), 'model');
    await faceapi.nets.ssdMobilenetv1.loadFromDisk(models);
    await faceapi.nets.faceLandmark68Net.loadFromDisk(models);
    await faceapi.nets.faceRecognitionNet.loadFromDisk(models);
    return faceapi;
  })();
  return loaded;
}

/**
 * Finds the faces of `img` (brought to FACE_MAX_SIDE by decodeRgb) and describes the largest.
 * `scale` converts the image's pixels back to those of the photograph as it was given.
 */
export async function readFaces(img: RgbImage & { scale: number }): Promise<FaceReading> {
  const faceapi = await loadFaceModels();
  type Input = Parameters<FaceApiModule['detectAllFaces']>[0] & { dispose(): void };
  const tf = faceapi.tf as unknown as {
    tensor3d(v: Int32Array, shape: [number, number, number], dtype: 'int32'): Input;
    pad(x: Input, paddings: [number, number][], value: number): Input;
  };
  const detect = (input: Input) =>
    faceapi
      .detectAllFaces(input, new faceapi.SsdMobilenetv1Options({ minConfidence: FACE_MIN_SCORE, maxResults: MAX_FACES }))
      .withFaceLandmarks()
      .withFaceDescriptors();
  const input = tf.tensor3d(Int32Array.from(img.rgb), [img.height, img.width, 3], 'int32');
  let found: Awaited<ReturnType<typeof detect>>;
  let shift = 0;
  try {
    found = await detect(input);
    if (found.length === 0) {
      // The detector misses a face that fills the whole frame (a close selfie, a cropped portrait):
      // once more with a grey margin around the image.
      shift = Math.round(Math.max(img.width, img.height) * PAD_SHARE);
      const padded = tf.pad(
        input,
        [
          [shift, shift],
          [shift, shift],
          [0, 0],
        ],
        128,
      );
      try {
        found = await detect(padded);
      } finally {
        padded.dispose();
      }
    }
  } finally {
    input.dispose();
  }
  const area = (f: (typeof found)[number]) => f.detection.box.width * f.detection.box.height;
  found.sort((a, b) => area(b) - area(a));
  const k = img.scale;
  const at = (v: number) => Math.round((v - shift) * k);
  const size = (v: number) => Math.round(v * k);
  return {
    width: size(img.width),
    height: size(img.height),
    faces: found.map((f) => ({
      box: { x: at(f.detection.box.x), y: at(f.detection.box.y), width: size(f.detection.box.width), height: size(f.detection.box.height) },
      score: Math.round(f.detection.score * 1000) / 1000,
    })),
    ...(found.length > 0 ? { descriptor: Array.from(found[0].descriptor) } : {}),
  };
}

/** Bytes of WebAssembly memory the backend holds now (0 before it started). */
export function wasmBytes(): number {
  const faceapi = require('@vladmandic/face-api/dist/face-api.node-wasm.js') as FaceApiModule;
  const backend = (faceapi.tf as unknown as { findBackend(name: string): { wasm?: { HEAPU8?: Uint8Array } } | null }).findBackend('wasm');
  return backend?.wasm?.HEAPU8?.byteLength ?? 0;
}

/** Euclidean distance of two descriptors. */
export function descriptorDistance(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) {
    s += (a[i] - b[i]) ** 2;
  }
  return Math.sqrt(s);
}
