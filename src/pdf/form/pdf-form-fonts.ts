// The font each regenerated field appearance of a pdf template is drawn with.
import { PdfName, type EmbeddedFont, type PDF, type PDFForm, type PdfRef } from '@libpdf/core';
import type { Fillable } from './pdf-form-fields.js';
import { bundledRobotoFont } from './bundled-font.js';
import { TemplateError } from '../../template-types.js';

/**
 * Picks the font each regenerated appearance is drawn with. The template's own font (from the
 * field's /DA) is kept whenever it shows the text correctly; otherwise Roboto (bundled with pdfmake,
 * embedded with a Unicode mapping) is used. The library would draw such text with the template's
 * font regardless: it writes text as PDFDocEncoding bytes whatever the font's encoding (so "Zoë"
 * drawn with the /Helv of a form made by @libpdf/core, which has no /Encoding and thus uses
 * Helvetica's StandardEncoding, prints "Zoº"), and characters outside Latin-1 come out as garbage.
 */
export class FontChooser {
  private roboto: EmbeddedFont | null = null;

  constructor(
    private readonly pdf: PDF,
    private readonly form: PDFForm,
  ) {}

  prepare(field: Fillable, newValue: string | undefined): void {
    const text = this.displayedText(field, newValue);
    if (text === null || this.templateFontShows(field, text)) {
      return;
    }
    this.roboto ??= this.pdf.embedFont(bundledRobotoFont('normal'));
    const roboto = this.roboto;
    const missing = roboto.getUnencodableCharacters(text.replace(/[\r\n\t]/g, ''));
    if (missing.length > 0) {
      throw new TemplateError('INVALID_VALUE', `${field.name}: no available font can show ${missing.map((c) => `"${c}"`).join(', ')}`, {
        field: field.name,
        characters: missing,
      });
    }
    field.setFont(roboto);
  }

  /** The text an appearance of the field shows (null for buttons: they draw a symbol). */
  private displayedText(field: Fillable, newValue: string | undefined): string | null {
    switch (field.type) {
      case 'text':
        return newValue ?? field.getValue();
      case 'dropdown': {
        const value = newValue ?? field.getValue();
        const option = field.getOptions().find((o) => o.value === value);
        return `${value}${option?.display ?? ''}`;
      }
      case 'listbox': // a list box shows all its options
        return field
          .getOptions()
          .map((o) => o.display)
          .join('');
      default:
        return null;
    }
  }

  private templateFontShows(field: Fillable, text: string): boolean {
    const plain = text.replace(/[\r\n\t]/g, '');
    // Every simple font encoding agrees on printable ASCII.
    if (/^[\x20-\x7e]*$/.test(plain)) {
      return true;
    }
    const acroForm = this.form.acroForm();
    const da = field.defaultAppearance ?? acroForm.defaultAppearance;
    const name = /\/([^\s/()<>[\]{}%]+)\s+[-+\d.]+\s+Tf/.exec(da ?? '')?.[1];
    if (!name) {
      return false;
    }
    const font = acroForm.getExistingFont(`/${name}`);
    if (!font) {
      return false;
    }
    // CID fonts are written glyph by glyph through their own cmap: correct whenever they can.
    if (font.isCIDFont) {
      return font.canUseForAppearance(plain);
    }
    // Simple fonts: the library writes PDFDocEncoding bytes, which match WinAnsiEncoding on
    // Latin-1 (but not 0x80-0x9F nor the soft hyphen). Any other encoding: ASCII only.
    const resolve = (ref: PdfRef) => this.pdf.getObject(ref);
    const dict = acroForm.getDefaultResources()?.getDict('Font', resolve)?.getDict(name, resolve);
    const encoding = dict?.get('Encoding', resolve);
    return encoding instanceof PdfName && encoding.value === 'WinAnsiEncoding' && /^[\x20-\x7e\xa0-\xac\xae-\xff]*$/.test(plain);
  }
}
