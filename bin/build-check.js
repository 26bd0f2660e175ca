// Whether build/ (the JavaScript that scripts/build-server.mjs compiles from src/) is current, by
// modification times: the build's stamp carries the time the build started, and any file or folder
// under src/ changed after it (a source edited, added, removed or renamed: a folder's time changes
// when an entry comes or goes), or the compiler's settings, makes the build stale. A stat of each
// entry: a few milliseconds for the ~550 entries of src/.
//
// An install without src/ (the container image) runs its build as it is.
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** Files besides src/ whose change changes the build's output. */
const INPUTS = ['tsconfig.json', 'scripts/build-server.mjs'];

/** The newest entry under `dir` (files and folders) after `since`, or undefined. */
function newerThan(dir, since) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (statSync(path).mtimeMs > since) {
      return path;
    }
    if (entry.isDirectory()) {
      const found = newerThan(path, since);
      if (found) {
        return found;
      }
    }
  }
  return undefined;
}

/**
 * Why the build in `out` (build/ by default) is not the sources of `root` as they are now (a few
 * words: "src/pdf/sign-pdf.ts changed since the last build"), or undefined when it is current.
 */
export function staleBuild(root = ROOT, out = join(root, 'build')) {
  const src = join(root, 'src');
  const stamp = join(out, '.build-stamp');
  if (!existsSync(stamp)) {
    return existsSync(src) ? 'src/ has not been built' : 'neither src/ nor its build is here';
  }
  if (!existsSync(src)) {
    return undefined;
  }
  const built = statSync(stamp).mtimeMs;
  if (statSync(src).mtimeMs > built) {
    return 'src/ changed since the last build';
  }
  const changed = newerThan(src, built) ?? INPUTS.map((f) => join(root, f)).find((f) => existsSync(f) && statSync(f).mtimeMs > built);
  return changed ? `${relative(root, changed)} changed since the last build` : undefined;
}
