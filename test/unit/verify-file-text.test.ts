// The public verification page speaks Spanish or English: every change description the verifier
// writes on the published attacks has a Spanish rendering, every rule and attack a name in both.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { attackText, changeText, ruleText, spanishDescription } from '../../src/http/verify-file-text.js';
import { STRUCTURE_RULES } from '../../src/pdf/verify/byte-range-rules.js';
import { verifyPdf } from '../../src/pdf/verify/verify-pdf.js';
import { createTestPki, type TestPki, type TestSigner } from '../helpers/openssl-pki.js';
import { HandPdf, stream } from '../helpers/signed-pdfs.js';

let pki: TestPki;
let ana: TestSigner;
beforeAll(async () => {
  pki = await createTestPki();
  ana = await pki.issueSigner({ cn: 'Ana García', email: 'ana@example.com' });
}, 60_000);
afterAll(() => pki?.dispose());

describe('Spanish descriptions of changes after signing', () => {
  it('renders each form of description', () => {
    const cases: [string, string][] = [
      ['content stream changed (/Length (stream data))', 'se modificó un flujo de contenido (/Length datos del flujo)'],
      ['page 1 changed (/Contents)', 'se modificó la página 1 (/Contents)'],
      ['page 1: annotations added to a page', 'página 1: se añadieron anotaciones a una página'],
      ['document catalog changed: /Pages', 'se modificó el catálogo del documento: /Pages'],
      ['signature dictionary of Ana redefined', 'se redefinió el diccionario de firma de Ana'],
      ['form field name filled in', 'se rellenó el campo de formulario name'],
      ['a form field was removed', 'se eliminó un campo del formulario'],
      ['signature field Ana Sello changed (/V)', 'se modificó el campo de firma Ana Sello (/V)'],
      ['font added, referenced by nothing', 'se añadió una fuente, que nada usa'],
      [
        'revision 3 cannot be read without rebuilding its cross-references',
        'la revisión 3 no se puede leer sin reconstruir sus referencias cruzadas',
      ],
      [
        'sneaky signature: signature field Sneaky added, drawn on the page without a valid signature',
        'firma furtiva: se añadió el campo de firma Sneaky, dibujada en la página sin una firma válida',
      ],
      [
        'signature Ana taken out of the form: the document as it ends no longer shows it',
        'la firma Ana se quitó del formulario: el documento tal como termina ya no la muestra',
      ],
    ];
    for (const [en, es] of cases) {
      expect(spanishDescription(en), en).toBe(es);
    }
  });

  it('an unknown description is never shown in English: what the change is, from its fields', () => {
    const text = changeText({ revision: 4, object: 12, kind: 'changed', category: 'other', description: 'something new' }, 'es');
    expect(text).toBe('revisión 4: se modificó el objeto 12 (un cambio que ninguna firma permite)');
    expect(changeText({ revision: 4, object: 12, kind: 'changed', category: 'other', description: 'something new' }, 'en')).toBe(
      'revision 4: something new',
    );
  });

  it('every change the verifier names on attack fixtures has a Spanish rendering', async () => {
    const EVIL = 'BT /F1 18 Tf 50 760 Td (Pay 9000 EUR to Eve) Tj ET';
    const signed = () => HandPdf.base().sign(pki, { signer: ana, field: 'Ana', docMdp: 2 });
    const files = [
      (await signed()).update({ 4: stream(EVIL) }),
      (await signed()).update({ 1: '<< /Type /Catalog /Pages 2 0 R /AcroForm 6 0 R /OpenAction [3 0 R /Fit] >>' }),
      (await signed()).update({
        20: '<< /Type /Annot /Subtype /FreeText /Rect [40 740 400 790] /Contents (Eve) /DA (/Helv 18 Tf 0 g) /P 3 0 R >>',
        3: '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Resources << /Font << /F1 5 0 R >> >> /Contents 4 0 R /Annots [20 0 R 9 0 R 7 0 R] >>',
      }),
      (await signed()).update({
        6: '<< /Fields [7 0 R] /DA (/Helv 0 Tf 0 g) >>',
        3: '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Resources << /Font << /F1 5 0 R >> >> /Contents 4 0 R /Annots [7 0 R] >>',
      }),
      (await signed()).update({
        7: '<< /FT /Tx /T (name) /V (Eve) /Type /Annot /Subtype /Widget /Rect [50 600 250 620] /P 3 0 R /F 4 /Ff 1 >>',
      }),
    ];
    const seen: string[] = [];
    for (const f of files) {
      const r = await verifyPdf(f.bytes, { trustedRootsDer: [pki.rootDer] });
      for (const c of r.signatures.flatMap((s) => s.changes)) {
        seen.push(c.description);
        expect(spanishDescription(c.description), c.description).not.toBeNull();
      }
    }
    expect(seen.length).toBeGreaterThan(6);
  });
});

describe('rules and attacks', () => {
  it('each structure rule and each CMS rule has a Spanish sentence; English keeps the verifier message', () => {
    const cms = [
      'cms-malformed',
      'cms-signer-count',
      'signer-certificate-missing',
      'unknown-subfilter',
      'cms-not-detached',
      'digest-algorithm',
      'signature-algorithm',
      'message-digest-mismatch',
      'signing-certificate-mismatch',
      'signature-value-invalid',
    ];
    for (const rule of [...STRUCTURE_RULES, ...cms]) {
      expect(ruleText(rule, 'english message', 'es'), rule).not.toBe('la firma no se verifica');
    }
    expect(ruleText('contents-empty', 'the /Contents string is empty', 'en')).toBe('the /Contents string is empty');
  });

  it('names each attack in both languages', () => {
    expect(attackText('incremental-saving', 'es')).toContain('Guardado incremental');
    expect(attackText('shadow-hide-and-replace', 'en')).toBe('Shadow attack: hide and replace');
  });
});
