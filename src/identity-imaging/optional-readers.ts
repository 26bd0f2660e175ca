// The face reader and the zone reader (OCR) are an optional part of the install: their models and
// WebAssembly engines are about 390 MB of node_modules, more than the rest of the service, and the
// service runs without them. They are the project's peer dependencies: `npm ci` installs them and
// `npm ci --omit=peer` leaves them out (not optionalDependencies: `--omit=optional` would drop the
// embedded PostgreSQL's binaries and esbuild too, which npm counts as optional). Whether they are
// installed is asked of the module resolver, without loading them: loading TensorFlow.js or
// Tesseract costs seconds and hundreds of MB, and happens only in the image jail's worker threads,
// when a review is checked.
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

/** What finding and describing faces loads (identity-imaging/face-descriptor.ts). */
export const FACE_PACKAGES = ['@vladmandic/face-api', '@tensorflow/tfjs', '@tensorflow/tfjs-backend-wasm'] as const;
/** What reading the machine-readable zone loads (identity-imaging/mrz-ocr.ts). */
export const OCR_PACKAGES = ['tesseract.js', '@tesseract.js-data/eng'] as const;

/** Which of the two optional readers this server has. */
export interface IdentityReaders {
  face: boolean;
  ocr: boolean;
}

function installed(name: string): boolean {
  try {
    require.resolve(`${name}/package.json`);
    return true;
  } catch {
    return false;
  }
}

export function installedReaders(): IdentityReaders {
  return { face: FACE_PACKAGES.every(installed), ocr: OCR_PACKAGES.every(installed) };
}

/** A reader asked for on a server that does not have it: the check says so, it is not a failure of the image. */
export class ReaderNotInstalledError extends Error {
  override name = 'ReaderNotInstalledError';
}

export const FACE_NOT_INSTALLED = 'face comparison is not available on this server (its optional part is not installed)';
export const OCR_NOT_INSTALLED = 'reading the machine-readable zone is not available on this server (its optional part is not installed)';

/** The start-up line naming what the identity checks cannot do here; undefined when both readers are installed. */
export function missingReadersLine(readers: IdentityReaders): string | undefined {
  const missing = [
    ...(readers.ocr ? [] : ["reading of the document's machine-readable zone (and so the name and expiry checks)"]),
    ...(readers.face ? [] : ['face comparison']),
  ];
  if (missing.length === 0) {
    return undefined;
  }
  return (
    `Identity checks: ${missing.join(' and ')} not installed (light install: npm ci --omit=peer); ` +
    'those checks say not_checked and every identity review waits for a person.'
  );
}
