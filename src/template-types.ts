// The one interface of the template engines (html, pdf, pdfmake, docx): what a template declares
// (fields and tables, detected when it is saved) and the values a generation fills in. A leaf,
// imported by render/ (the engines), pdf/form/ (pdf templates, filled in the PDF jail's workers)
// and jail/ (which carries a TemplateError out of a worker), so none of them imports another for it.
// Engines are pure libraries (bytes in, bytes out); renderers that drive external programs
// (Chromium, LibreOffice) take their process pool as a parameter.

/** The engines; store/templates-repo.ts checks that the database's templates.type allows exactly these. */
export type TemplateType = 'html' | 'pdf' | 'pdfmake' | 'docx';

export type FieldType = 'text' | 'checkbox' | 'radio' | 'choice';

/** A field a template declares. `value` is empty when detected; `options` lists allowed values. */
export interface TemplateField {
  id: string;
  value: string;
  /** Only pdf templates report types; the other engines' fields are text. */
  type?: FieldType;
  options?: string[];
}

/** A repeating table (html templates): `rows` holds one row, the row template's columns. */
export interface TemplateTable {
  id: string;
  rows: TemplateField[][];
}

export interface DetectedTemplate {
  fields: TemplateField[];
  tables: TemplateTable[];
}

/** Values of one generation: field id → value; table id → rows of (column id → value). */
export interface FillValues {
  fields: Map<string, string>;
  tables: Map<string, Record<string, string>[]>;
}

export type TemplateProblem =
  /** The template itself is unusable (duplicate ids, not a form, unreadable docx, ...). */
  | 'INVALID_TEMPLATE'
  /** A value is not allowed for its field (e.g. a choice outside the options). */
  | 'INVALID_VALUE'
  /** The renderer did not finish in time and was killed. */
  | 'RENDER_TIMEOUT'
  /** The renderer cannot run here (program missing, crashed at start). */
  | 'RENDERER_UNAVAILABLE'
  /** A pdf template could not be read within the limits of the PDF jail (time, memory, decompression). */
  | 'TOO_COMPLEX';

export class TemplateError extends Error {
  constructor(
    readonly problem: TemplateProblem,
    message: string,
    readonly details?: Record<string, unknown>,
  ) {
    super(message);
    this.name = 'TemplateError';
  }
}
