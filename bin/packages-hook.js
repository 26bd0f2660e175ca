// Module loader hook, registered after tsx's wherever the sources run through tsx (bin/run-ts.js;
// bin/sello.js and the jail's worker threads when they run a source rather than the build): installed
// packages that are already ES modules load as plain Node loads them, and only this repository's
// TypeScript goes through tsx. The build (build/) runs without either.
//
// Why: tsx's loader also rewrites every ES module in node_modules that contains `import(` and
// attaches a fine-grained source map to it, and Node, whose source-map support tsx turns on, then
// parses the package's own .map file as well. For @libpdf/core (a 1.2 MB bundle with a 2.7 MB map)
// that left about 120 MB more resident memory in every Sello process than plain Node needs to load
// it (docs/performance.md, scenario F). Packages are JavaScript already: they need neither.
//
// A package's trailing `//# sourceMappingURL=` comment is dropped, so Node does not parse its map:
// a stack frame inside a package then shows the installed file's position, as it does under plain
// Node, while frames in Sello's sources keep their TypeScript positions.
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';

const SOURCE_MAP_COMMENT = /\n\/\/# sourceMappingURL=[^\n]*\s*$/;

export async function load(url, context, nextLoad) {
  if (context.format === 'module' && url.startsWith('file:') && url.includes('/node_modules/') && !url.includes('?')) {
    const source = await readFile(fileURLToPath(url), 'utf8');
    return { format: 'module', source: source.replace(SOURCE_MAP_COMMENT, '\n'), shortCircuit: true };
  }
  return nextLoad(url, context);
}
