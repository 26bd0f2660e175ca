// The four template engines behind one interface: detect what a template declares, and render a
// PDF from it with values. html and docx drive external programs through bounded pools (one shared
// Chromium with a fixed number of pages; LibreOffice conversions queued a few at a time), so a
// burst of generations queues instead of exhausting the machine.
import { DocxConverter } from './docx-converter.js';
import { detectDocxTemplate, fillDocxTemplate } from './docx-template.js';
import { HtmlRenderer } from './html-renderer.js';
import { detectHtmlTemplate, fillHtmlTemplate } from './html-template.js';
import { PdfJailBusyError, PdfTooComplexError, type PdfJail } from '../jail/pdf-jail.js';
import { PdfReadError } from '../pdf/read-signatures.js';
import { PdfmakeRenderer } from './pdfmake-renderer.js';
import { detectPdfmake } from './pdfmake-template.js';
import { TemplateError, type DetectedTemplate, type FillValues, type TemplateType } from './types.js';

export interface RendererOptions {
  chromiumPath: string;
  htmlPages: number;
  sofficePath: string;
  docxConcurrency: number;
  timeoutMs: number;
}

export interface TemplateEngines {
  /** Fields and tables a template source declares. pdfmake sources are UTF-8 JSON bytes. */
  detect(type: TemplateType, source: Buffer): Promise<DetectedTemplate>;
  render(type: TemplateType, source: Buffer, values: FillValues): Promise<Buffer>;
  close(): Promise<void>;
}

/** pdf templates are read in the PDF jail (jail/pdf-jail.ts), like every PDF a client sends. */
export function createTemplateEngines(opts: RendererOptions, pdfJail: PdfJail): TemplateEngines {
  const html = new HtmlRenderer({ executablePath: opts.chromiumPath, pages: opts.htmlPages, timeoutMs: opts.timeoutMs });
  const pdfmake = new PdfmakeRenderer({ workers: 2, timeoutMs: opts.timeoutMs });
  const docx = new DocxConverter({ binary: opts.sofficePath, concurrency: opts.docxConcurrency, timeoutMs: opts.timeoutMs * 2 });
  return {
    async detect(type, source) {
      switch (type) {
        case 'html':
          return detectHtmlTemplate(source.toString('utf8'));
        case 'pdf':
          return jailed(() => pdfJail.detectPdfForm(source));
        case 'pdfmake':
          return detectPdfmake(parseJson(source));
        case 'docx':
          return detectDocxTemplate(source);
      }
    },
    async render(type, source, values) {
      switch (type) {
        case 'html':
          return html.render(fillHtmlTemplate(source.toString('utf8'), values));
        case 'pdf':
          return jailed(() => pdfJail.fillPdfForm(source, values));
        case 'pdfmake':
          return pdfmake.render(parseJson(source), values);
        case 'docx':
          return docx.convert(await fillDocxTemplate(source, values));
      }
    },
    close: async () => {
      await Promise.all([html.close(), pdfmake.close()]);
    },
  };
}

/** The jail's refusals as the engines report problems. */
async function jailed<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (err instanceof TemplateError) {
      throw err;
    }
    if (err instanceof PdfTooComplexError) {
      throw new TemplateError('TOO_COMPLEX', `the template: ${err.message}`);
    }
    if (err instanceof PdfJailBusyError) {
      throw new TemplateError('RENDERER_UNAVAILABLE', err.message);
    }
    if (err instanceof PdfReadError) {
      throw new TemplateError('INVALID_TEMPLATE', err.message);
    }
    throw err;
  }
}

function parseJson(source: Buffer): unknown {
  try {
    return JSON.parse(source.toString('utf8'));
  } catch {
    throw new TemplateError('INVALID_TEMPLATE', 'the pdfmake definition is not valid JSON');
  }
}
