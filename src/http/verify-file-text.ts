// What the public verification page (POST /verify) says of a broken rule, a change after signing
// and a recognized attack, in Spanish or English. The verifier speaks English to programs (the
// report's messages and change descriptions); people on the page read their own language. Rules
// and attacks are fixed lists; a change description follows the small grammar of
// pdf/verify/change-rules.ts, translated here piece by piece. A description this file does not
// know is never shown in English on the Spanish page: it falls back to what the change is from
// its structured fields.
import type { PageLocale } from './verify-html.js';

export interface PageChange {
  revision: number;
  object: number;
  kind: 'added' | 'changed' | 'removed';
  category: string;
  description: string;
}

const RULES_ES: Record<string, string> = {
  'byte-range-missing': 'la firma no tiene /ByteRange: no dice qué bytes firma',
  'byte-range-malformed': 'el /ByteRange no son cuatro enteros no negativos',
  'byte-range-not-from-zero': 'el /ByteRange no empieza en 0: los bytes anteriores no están firmados',
  'byte-range-overlapping': 'las partes del /ByteRange se solapan',
  'byte-range-past-end': 'el /ByteRange llega más allá del final del archivo',
  'byte-range-short-of-revision': 'los bytes firmados no terminan donde termina una revisión del archivo',
  'byte-range-duplicated': 'el diccionario de firma nombra /ByteRange o /Contents más de una vez',
  'contents-missing': 'la firma no tiene /Contents',
  'contents-empty': 'el /Contents está vacío o son solo ceros: no hay firma',
  'contents-gap-mismatch': 'los bytes que el /ByteRange deja fuera no son exactamente el /Contents de esta firma',
  'contents-not-der': 'el /Contents no empieza con una firma CMS (un elemento BER o DER completo)',
  'contents-trailing-data': 'el /Contents contiene datos después de la firma CMS que no son relleno de ceros',
  'signature-dictionary-misplaced': 'el /Contents excluido no está dentro del diccionario de firma al que apunta el campo',
  'cms-malformed': 'la firma no es un CMS SignedData legible',
  'cms-signer-count': 'la firma CMS no tiene exactamente un firmante',
  'signer-certificate-missing': 'el certificado del firmante no está en la firma',
  'unknown-subfilter': 'el tipo de firma (/SubFilter) no es uno que este servicio verifique',
  'cms-not-detached': 'la firma lleva su contenido dentro en lugar de firmar el documento (no es separada)',
  'digest-algorithm': 'la firma usa un algoritmo de resumen no admitido',
  'signature-algorithm': 'la firma usa un algoritmo de firma no admitido: no se pudo verificar',
  'message-digest-mismatch': 'el resumen firmado no coincide con los bytes firmados: el documento cambió después de firmar',
  'signature-value-invalid': 'el valor de la firma no se verifica con el certificado del firmante',
  'signing-certificate-mismatch': 'el atributo signing-certificate nombra otro certificado que el que firmó',
};

const ATTACKS: Record<string, Record<PageLocale, string>> = {
  'universal-signature-forgery': { es: 'Falsificación universal de firma', en: 'Universal signature forgery' },
  'signature-wrapping': { es: 'Envoltura de firma (bytes firmados desplazados)', en: 'Signature wrapping' },
  'incremental-saving': { es: 'Guardado incremental: contenido cambiado después de firmar', en: 'Incremental saving' },
  'shadow-hide': { es: 'Ataque sombra: ocultar', en: 'Shadow attack: hide' },
  'shadow-replace': { es: 'Ataque sombra: reemplazar', en: 'Shadow attack: replace' },
  'shadow-hide-and-replace': { es: 'Ataque sombra: ocultar y reemplazar', en: 'Shadow attack: hide and replace' },
  'evil-annotation': { es: 'Anotación maliciosa', en: 'Evil annotation' },
  'sneaky-signature': { es: 'Firma furtiva', en: 'Sneaky signature' },
};

/** Why a signature is not valid: the verifier's own sentence in English, the rule's in Spanish. */
export function ruleText(rule: string, message: string, locale: PageLocale): string {
  if (locale === 'en') {
    return message;
  }
  return RULES_ES[rule] ?? 'la firma no se verifica';
}

export function attackText(name: string, locale: PageLocale): string {
  return ATTACKS[name]?.[locale] ?? name;
}

const VERB: Record<PageChange['kind'], string> = { added: 'se añadió', changed: 'se modificó', removed: 'se eliminó' };
const CATEGORY: Record<string, string> = {
  signature: 'una firma',
  timestamp: 'un sello de tiempo',
  dss: 'datos de validación',
  'form-fill': 'el relleno del formulario',
  annotation: 'una anotación',
  metadata: 'los metadatos',
  structure: 'la estructura del archivo',
  unreferenced: 'un objeto que nada usa',
  other: 'un cambio que ninguna firma permite',
};

/** The object the verifier names (describe-object in document-facts.ts), with its article. */
function what(text: string): string | null {
  const fixed: Record<string, string> = {
    'document catalog': 'el catálogo del documento',
    annotation: 'una anotación',
    'page tree': 'el árbol de páginas',
    font: 'una fuente',
    image: 'una imagen',
    'form XObject': 'un XObject de formulario',
    'content stream': 'un flujo de contenido',
    dictionary: 'un diccionario',
    array: 'una matriz',
    object: 'un objeto',
  };
  if (fixed[text]) {
    return fixed[text];
  }
  const m =
    /^page (\d+)$/.exec(text) ??
    /^signature dictionary of (.+)$/.exec(text) ??
    /^form field (.+)$/.exec(text) ??
    /^(\S+) dictionary$/.exec(text);
  if (!m) {
    return null;
  }
  if (text.startsWith('page ')) {
    return `la página ${m[1]}`;
  }
  if (text.startsWith('signature dictionary of ')) {
    return `el diccionario de firma de ${m[1]}`;
  }
  if (text.startsWith('form field ')) {
    return `el campo de formulario ${m[1]}`;
  }
  return `un diccionario /${m[1]}`;
}

/** " (/A /B (stream data))" → " (/A /B datos del flujo)": PDF key names are the same in every language. */
const keys = (text: string | undefined) => (text ? ` (${text.replace('(stream data)', 'datos del flujo').trim()})` : '');
const verbOf = (kind: string) => VERB[kind as PageChange['kind']] ?? kind;

type Rule = [RegExp, (m: RegExpExecArray) => string | null];

const ANNOTS: Record<string, string> = {
  'an annotation was removed from a page': 'se quitó una anotación de una página',
  'signature widgets added to a page': 'se añadieron widgets de firma a una página',
  'annotations added to a page': 'se añadieron anotaciones a una página',
};

const FIXED: Record<string, string> = {
  'the trailer names another document catalog': 'el tráiler apunta a otro catálogo del documento',
  'cross-reference or object stream': 'un flujo de referencias cruzadas o de objetos',
  'validation data (DSS)': 'datos de validación (DSS)',
  'document information dictionary': 'el diccionario de información del documento',
  'document catalog: the form was replaced': 'catálogo del documento: se reemplazó el formulario',
  'a form field was removed': 'se eliminó un campo del formulario',
  'a form field other than a signature field was added': 'se añadió un campo de formulario que no es de firma',
  'form dictionary: /NeedAppearances': 'diccionario del formulario: /NeedAppearances',
  'signature appearance': 'la apariencia de una firma',
  'form field appearance': 'la apariencia de un campo de formulario',
  'annotation appearance': 'la apariencia de una anotación',
  ...ANNOTS,
};

const KIND = '(added|changed|removed)';
const KEYS = '(?: \\((.*)\\))?';

/** The Spanish of each description the verifier writes, most specific first. */
const SPANISH: Rule[] = [
  [
    /^sneaky signature: (.+), drawn on the page (without a valid signature|with a signature no trusted authority vouches for)$/,
    (m) => {
      const inner = spanishDescription(m[1]);
      const why = m[2].startsWith('without') ? 'sin una firma válida' : 'con una firma que ninguna autoridad de confianza respalda';
      return inner ? `firma furtiva: ${inner}, dibujada en la página ${why}` : null;
    },
  ],
  [
    /^signature (.+) taken out of the form: the document as it ends no longer shows it$/,
    (m) => `la firma ${m[1]} se quitó del formulario: el documento tal como termina ya no la muestra`,
  ],
  [
    /^revision (\d+) cannot be read without rebuilding its cross-references$/,
    (m) => `la revisión ${m[1]} no se puede leer sin reconstruir sus referencias cruzadas`,
  ],
  [
    /^(\d+) bytes appended after the last revision, outside any cross-reference section$/,
    (m) => `${m[1]} bytes añadidos después de la última revisión, fuera de toda sección de referencias cruzadas`,
  ],
  [new RegExp(`^XMP metadata stream ${KIND}$`), (m) => `${verbOf(m[1])} el flujo de metadatos XMP`],
  [/^signature dictionary of (.+) redefined$/, (m) => `se redefinió el diccionario de firma de ${m[1]}`],
  [/^document catalog changed: (.+)$/, (m) => `se modificó el catálogo del documento: ${m[1]}`],
  [/^document catalog: (.+)$/, (m) => `catálogo del documento: ${m[1]}`],
  [/^form dictionary changed \((.*)\)$/, (m) => `se modificó el diccionario del formulario (${m[1]})`],
  [/^form default resource (\/\S+) redefined$/, (m) => `se redefinió el recurso predeterminado ${m[1]} del formulario`],
  [/^form dictionary: (.+)$/, (m) => `diccionario del formulario: ${m[1]}`],
  [/^signature field (.+) signed$/, (m) => `se firmó el campo de firma ${m[1]}`],
  [new RegExp(`^signature field (.+) ${KIND}${KEYS}$`), (m) => `${verbOf(m[2])} el campo de firma ${m[1]}${keys(m[3])}`],
  [/^appearance of signature field (.+)$/, (m) => `la apariencia del campo de firma ${m[1]}`],
  [/^form field (.+) filled in$/, (m) => `se rellenó el campo de formulario ${m[1]}`],
  [new RegExp(`^form field (.+) ${KIND}${KEYS}$`), (m) => `${verbOf(m[2])} el campo de formulario ${m[1]}${keys(m[3])}`],
  [/^widget of signature field (.+)$/, (m) => `el widget del campo de firma ${m[1]}`],
  [/^widget of form field (.+)$/, (m) => `el widget del campo de formulario ${m[1]}`],
  [
    new RegExp(`^widget of (.+) ${KIND}${KEYS}$`),
    (m) => `${verbOf(m[2])} el widget de ${m[1] === 'a field' ? 'un campo' : m[1]}${keys(m[3])}`,
  ],
  [/^(document time stamp|signature) (.+)$/, (m) => `${m[1] === 'signature' ? 'la firma' : 'el sello de tiempo de documento'} ${m[2]}`],
  [/^page (\d+): (.+)$/, (m) => (ANNOTS[m[2]] ? `página ${m[1]}: ${ANNOTS[m[2]]}` : null)],
  [new RegExp(`^annotation ${KIND}${KEYS}$`), (m) => `${verbOf(m[1])} una anotación${keys(m[2])}`],
  [
    new RegExp(`^(.+) ${KIND}, referenced by nothing$`),
    (m) => {
      const object = what(m[1]);
      return object ? `${verbOf(m[2])} ${object}, que nada usa` : null;
    },
  ],
  [
    new RegExp(`^(.+) ${KIND}${KEYS}$`),
    (m) => {
      const object = what(m[1]);
      return object ? `${verbOf(m[2])} ${object}${keys(m[3])}` : null;
    },
  ],
];

/** The Spanish of a change description the verifier wrote; null for one this file does not know. */
export function spanishDescription(description: string): string | null {
  if (FIXED[description]) {
    return FIXED[description];
  }
  for (const [pattern, make] of SPANISH) {
    const m = pattern.exec(description);
    if (m) {
      const text = make(m);
      if (text) {
        return text;
      }
    }
  }
  return null;
}

/** One change no signature allows, as a line of the page. */
export function changeText(c: PageChange, locale: PageLocale): string {
  if (locale === 'en') {
    return `revision ${c.revision}: ${c.description}`;
  }
  const text = spanishDescription(c.description) ?? `${verbOf(c.kind)} el objeto ${c.object} (${CATEGORY[c.category] ?? CATEGORY.other})`;
  return `revisión ${c.revision}: ${text}`;
}
