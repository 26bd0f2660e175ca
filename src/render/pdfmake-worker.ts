// The worker side of PdfmakeRenderer: renders one definition per task, on its own thread, so a
// huge definition blocks this thread only, and the parent can stop it by terminating the worker.
import { serveTasks } from '../jail/serve-tasks.js';
import { renderPdfmake } from './pdfmake-template.js';
import { TemplateError, type FillValues } from './types.js';

serveTasks(
  {
    render: async (m: { definition: unknown; values: FillValues }) => {
      try {
        return await renderPdfmake(m.definition, m.values);
      } catch (err) {
        throw err instanceof TemplateError ? err : new TemplateError('INVALID_TEMPLATE', `pdfmake failed: ${(err as Error).message}`);
      }
    },
  },
  (err) => (err instanceof TemplateError ? { problem: err.problem, details: err.details } : undefined),
);
