// The worker side of PdfmakeRenderer: renders one definition per message, on its own thread, so a
// huge definition blocks this thread only, and the parent can stop it by terminating the worker.
import { parentPort } from 'node:worker_threads';
import { renderPdfmake } from './pdfmake-template.js';
import { TemplateError, type FillValues } from './types.js';

parentPort!.on('message', async (m: { id: number; definition: unknown; values: FillValues }) => {
  try {
    const pdf = await renderPdfmake(m.definition, m.values);
    parentPort!.postMessage({ id: m.id, pdf });
  } catch (err) {
    const e = err instanceof TemplateError ? err : new TemplateError('INVALID_TEMPLATE', `pdfmake failed: ${(err as Error).message}`);
    parentPort!.postMessage({ id: m.id, error: { problem: e.problem, message: e.message, details: e.details } });
  }
});
