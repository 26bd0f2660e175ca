/** Where the build put pdf.js's standard fonts, CMaps and wasm decoders (vite.config.ts). */
declare const __PDFJS_ASSETS__: string;
