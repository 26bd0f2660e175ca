// The Roboto fonts bundled with pdfmake: pdfmake templates are laid out in them, and a pdf
// template's field whose own font cannot show its value is filled in Roboto (no network, no disk).
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

export type RobotoVariant = 'normal' | 'bold' | 'italics' | 'bolditalics';

// The weights pdfmake's own Roboto setup uses: bold is Medium.
const ROBOTO_FILES: Record<RobotoVariant, string> = {
  normal: 'Roboto-Regular.ttf',
  bold: 'Roboto-Medium.ttf',
  italics: 'Roboto-Italic.ttf',
  bolditalics: 'Roboto-MediumItalic.ttf',
};
const robotoCache = new Map<RobotoVariant, Buffer>();

/** A Roboto font file from pdfmake's bundled virtual file system (base64 in vfs_fonts.js). */
export function bundledRobotoFont(variant: RobotoVariant): Buffer {
  let font = robotoCache.get(variant);
  if (!font) {
    const vfs = require('pdfmake/build/vfs_fonts.js') as Record<string, string>;
    const data = vfs[ROBOTO_FILES[variant]];
    if (!data) {
      throw new Error(`pdfmake's bundled fonts lack ${ROBOTO_FILES[variant]}`);
    }
    font = Buffer.from(data, 'base64');
    robotoCache.set(variant, font);
  }
  return font;
}
