// The worker side of ImageJail: each evidence photograph is decoded here (identity-imaging/decode-image.ts),
// on a thread with a heap limit, stopped by the parent when it runs out of time; then measured, or
// its machine-readable zone read. Errors go back as data for ImageJail to rebuild.
import { decodeImage, ImageDecodeError } from '../identity-imaging/decode-image.js';
import { measureQuality } from '../identity-imaging/image-quality.js';
import { readMrz } from '../identity-imaging/mrz-ocr.js';
import { serveTasks } from './serve-tasks.js';

serveTasks(
  {
    quality: (m: { bytes: Uint8Array }) => {
      const planes = decodeImage(m.bytes);
      return { width: planes.width, height: planes.height, ...measureQuality(planes) };
    },
    readMrz: (m: { bytes: Uint8Array }) => readMrz(decodeImage(m.bytes)),
  },
  (err) => (err instanceof ImageDecodeError ? { kind: 'decode', problem: err.problem } : { kind: 'other' }),
);
