// The worker side of ImageJail's face readings: the photograph is decoded in colour and brought to
// FACE_MAX_SIDE px (identity-imaging/decode-image.ts), and its faces found and the largest described
// (identity-imaging/face-descriptor.ts). The models load when the worker starts (before the pool counts a
// task's time) and stay loaded for the tasks after. The backend's WebAssembly memory is outside the
// worker's heap limit and never shrinks: past `wasmLimitMb` after a task, the worker retires. It
// retires too after any failure but an undecodable image: the backend's state is then unknown (an
// aborted WebAssembly module fails every call after), and a fresh worker is cheaper than a broken one.
import { decodeRgb, ImageDecodeError } from '../identity-imaging/decode-image.js';
import { FACE_MAX_SIDE, loadFaceModels, readFaces, wasmBytes } from '../identity-imaging/face-descriptor.js';
import { retireAfterTask, serveTasks } from './serve-tasks.js';

await loadFaceModels();

serveTasks(
  {
    faces: async (m: { bytes: Uint8Array; wasmLimitMb: number }) => {
      try {
        return await readFaces(decodeRgb(m.bytes, FACE_MAX_SIDE));
      } catch (err) {
        if (!(err instanceof ImageDecodeError)) {
          retireAfterTask();
        }
        throw err;
      } finally {
        if (wasmBytes() > m.wasmLimitMb * 1024 * 1024) {
          retireAfterTask();
        }
      }
    },
  },
  (err) => (err instanceof ImageDecodeError ? { kind: 'decode', problem: err.problem } : { kind: 'other' }),
);
