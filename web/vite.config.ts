// Builds the signer page into web/dist: index.html (served by the service at /sign/{token}) and
// hashed assets under /assets/ (served by src/http/routes/signer-page.ts with @fastify/static).
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

const here = decodeURIComponent(new URL('.', import.meta.url).pathname);

export default defineConfig({
  root: here,
  base: '/',
  plugins: [react()],
  publicDir: false,
  logLevel: 'warn',
  build: {
    outDir: 'dist',
    assetsDir: 'assets',
    emptyOutDir: true,
    target: 'es2022',
    // pdf.js is large by nature; it loads after the page shows, in its own chunk.
    chunkSizeWarningLimit: 1600,
  },
});
