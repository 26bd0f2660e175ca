// Builds the signer page and the account panel into web/dist: index.html (served by the service at
// /sign/{token}), panel.html (served at /panel) and their hashed assets under /assets/ (served by
// src/http/routes/signer-page.ts), where the code both use (React, the shared styles) is one chunk.
import { cpSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import react from '@vitejs/plugin-react';
import { defineConfig, type Plugin } from 'vite';

const here = decodeURIComponent(new URL('.', import.meta.url).pathname);
const pdfjsDir = join(here, '..', 'node_modules', 'pdfjs-dist');
const pdfjsVersion = (JSON.parse(readFileSync(join(pdfjsDir, 'package.json'), 'utf8')) as { version: string }).version;

/**
 * Where pdf.js finds the data it loads at run time: the 14 standard fonts (a PDF that names
 * Helvetica without embedding it is drawn with the real metrics, not a system font's, which spaced
 * letters unevenly), the CMaps of CJK fonts and the wasm image decoders. Served from the page's own
 * origin (the CSP allows nothing else), under a folder named for the pdf.js version, because
 * /assets/ is cached as immutable.
 */
const PDFJS_ASSETS = `/assets/pdfjs-${pdfjsVersion}/`;

function pdfjsData(): Plugin {
  return {
    name: 'sello-pdfjs-data',
    apply: 'build',
    writeBundle(options) {
      const out = join(options.dir ?? join(here, 'dist'), 'assets', `pdfjs-${pdfjsVersion}`);
      for (const dir of ['standard_fonts', 'cmaps', 'wasm']) {
        cpSync(join(pdfjsDir, dir), join(out, dir), { recursive: true });
      }
    },
  };
}

export default defineConfig({
  root: here,
  base: '/',
  plugins: [react(), pdfjsData()],
  define: { __PDFJS_ASSETS__: JSON.stringify(PDFJS_ASSETS) },
  publicDir: false,
  logLevel: 'warn',
  build: {
    outDir: 'dist',
    assetsDir: 'assets',
    emptyOutDir: true,
    target: 'es2022',
    // pdf.js is large by nature; it loads after the page shows, in its own chunk.
    chunkSizeWarningLimit: 1600,
    rollupOptions: { input: { index: join(here, 'index.html'), panel: join(here, 'panel.html') } },
  },
});
