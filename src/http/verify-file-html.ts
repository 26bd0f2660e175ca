// The public page where anyone verifies a PDF (GET /verify: the form; POST /verify: the answer),
// in Spanish or English. Like the QR page (verify-html.ts) it is one self-contained document with no
// script: a plain form posts the file, and the answer is a new page. Every value is escaped.
import type { PublicFileVerification } from '../domain/documents/verify-public-file.js';
import { attackText, changeText, ruleText } from './verify-file-text.js';
import { esc, page, type PageLocale, when } from './verify-html.js';

const TEXT = {
  es: {
    title: 'Verificar un PDF firmado',
    intro: 'Elige un PDF firmado para comprobar sus firmas. El archivo se verifica y se descarta: no se guarda.',
    choose: 'Archivo PDF',
    submit: 'Verificar',
    limit: (mb: number) => `Hasta ${mb} MB.`,
    again: 'Verificar otro archivo',
    fingerprint: 'Huella SHA-256 del archivo',
    integrity: {
      intact: 'Íntegro: ninguna firma se alteró y nada que prohíban se cambió después',
      modified: 'Modificado después de firmar',
      invalid: 'Contiene firmas no válidas',
    },
    none: 'El archivo no tiene firmas.',
    signatures: 'Firmas',
    valid: 'Firma válida',
    invalid: 'Firma no válida',
    modifiedBadge: 'Documento modificado después de esta firma',
    signer: 'Firmante',
    authority: 'Emitido por',
    signedAt: 'Fecha de firma',
    trusted: 'Certificado de confianza para este servicio',
    untrusted: 'Certificado de una autoridad que este servicio no conoce',
    level: 'Nivel PAdES',
    problem: 'Motivo',
    attacks: 'Patrones de ataque reconocidos',
    changes: 'Cambios no permitidos',
    errors: {
      invalid: 'El archivo no es un PDF legible.',
      complex: 'El archivo es demasiado complejo o grande para verificarlo aquí.',
      large: 'El archivo supera el tamaño permitido.',
      busy: 'Demasiadas verificaciones desde tu dirección. Inténtalo de nuevo en un minuto.',
      missing: 'Elige un archivo PDF.',
      unexpected: 'El formulario envía solo el archivo PDF (file); la petición trae otra parte',
      failed: 'No se pudo verificar el archivo en este momento.',
    },
  },
  en: {
    title: 'Verify a signed PDF',
    intro: 'Choose a signed PDF to check its signatures. The file is verified and discarded: it is not kept.',
    choose: 'PDF file',
    submit: 'Verify',
    limit: (mb: number) => `Up to ${mb} MB.`,
    again: 'Verify another file',
    fingerprint: 'SHA-256 fingerprint of the file',
    integrity: {
      intact: 'Intact: no signature was altered and nothing they forbid was changed after',
      modified: 'Modified after signing',
      invalid: 'Contains signatures that are not valid',
    },
    none: 'The file has no signatures.',
    signatures: 'Signatures',
    valid: 'Valid signature',
    invalid: 'Signature not valid',
    modifiedBadge: 'Document modified after this signature',
    signer: 'Signer',
    authority: 'Issued by',
    signedAt: 'Signed at',
    trusted: 'Certificate trusted by this service',
    untrusted: 'Certificate from an authority this service does not know',
    level: 'PAdES level',
    problem: 'Reason',
    attacks: 'Attack patterns recognized',
    changes: 'Changes not allowed',
    errors: {
      invalid: 'The file is not a readable PDF.',
      complex: 'The file is too complex or too large to verify here.',
      large: 'The file is larger than allowed.',
      busy: 'Too many verifications from your address. Try again in a minute.',
      missing: 'Choose a PDF file.',
      unexpected: 'The form sends only the PDF file (file); the request carries another part',
      failed: 'The file cannot be verified at the moment.',
    },
  },
};

export type FileProblem = keyof (typeof TEXT)['es']['errors'];

/** The form, with a problem above it when the last attempt failed (and the part it was about, if named). */
export function renderVerifyForm(locale: PageLocale, maxMb: number, problem?: FileProblem, part?: string): string {
  const t = TEXT[locale];
  const named = problem === 'unexpected' ? (part ? `: <code>${esc(part)}</code>.` : '.') : '';
  const error = problem ? `<section class="card sig-bad"><p>${esc(t.errors[problem])}${named}</p></section>` : '';
  const form = `<section class="card">
<p>${esc(t.intro)}</p>
<form method="post" action="/verify" enctype="multipart/form-data">
<p><label for="file">${esc(t.choose)}</label><br><input id="file" name="file" type="file" accept="application/pdf,.pdf" required></p>
<p class="help">${esc(t.limit(maxMb))}</p>
<p><button type="submit">${esc(t.submit)}</button></p>
</form>
</section>`;
  return page(locale, t.title, [error, form].filter(Boolean).join('\n'));
}

export function renderVerifyResult(v: PublicFileVerification, locale: PageLocale): string {
  const t = TEXT[locale];
  const cls = v.document_integrity === 'intact' ? 'ok' : 'bad';
  const summary = `<section class="card">
<p class="badge ${cls}">${esc(t.integrity[v.document_integrity])}</p>
<dl><dt>${esc(t.fingerprint)}</dt><dd class="hash">${esc(v.sha256)}</dd></dl>
</section>`;
  const cards = v.signatures.map((s) => {
    const ok = s.valid && !s.modified_after_signing;
    const rows: [string, string][] = [
      [t.signer, esc(s.signer_name || s.field)],
      [t.authority, esc(`${s.issuer_name} · ${s.trusted ? t.trusted : t.untrusted}`)],
      [t.signedAt, when(s.signed_at, locale)],
      [t.level, esc(s.level)],
    ];
    if (s.problem) {
      rows.push([t.problem, esc(ruleText(s.rule, s.problem, locale))]);
    }
    const badges = [`<p class="badge ${s.valid ? 'ok' : 'bad'}">${esc(s.valid ? t.valid : t.invalid)}</p>`];
    if (s.modified_after_signing) {
      badges.push(`<p class="badge bad">${esc(t.modifiedBadge)}</p>`);
    }
    return `<article class="card sig-${ok ? 'ok' : 'bad'}">
<h3>${esc(s.signer_name || s.field)}</h3>
${badges.join(' ')}
<dl>${rows.map(([k, val]) => `<dt>${esc(k)}</dt><dd>${val}</dd>`).join('')}</dl>
</article>`;
  });
  const list = (title: string, items: string[]) =>
    items.length ? `<section class="card"><h2>${esc(title)}</h2><ul>${items.map((i) => `<li>${esc(i)}</li>`).join('')}</ul></section>` : '';
  const signatures = `<section><h2>${esc(t.signatures)} (${v.signatures.length})</h2>${cards.length ? cards.join('\n') : `<p class="muted">${esc(t.none)}</p>`}</section>`;
  const again = `<footer><a href="/verify">${esc(t.again)}</a></footer>`;
  return page(
    locale,
    t.title,
    [
      summary,
      signatures,
      list(
        t.changes,
        v.changes.map((c) => changeText(c, locale)),
      ),
      list(
        t.attacks,
        v.attacks.map((a) => attackText(a, locale)),
      ),
      again,
    ]
      .filter(Boolean)
      .join('\n'),
  );
}
