// The public verification page (/verify/{ticket}) as one self-contained HTML document: inline CSS,
// no script, no image, nothing fetched, so it passes `default-src 'none'`. Laid out for a phone
// first (the QR code is read with one), in Spanish or English. Every value is escaped.
import type { PublicSignature, PublicVerification } from '../domain/documents/verify-document.js';

export type PageLocale = 'es' | 'en';

/** The first of es or en in the Accept-Language preference order (RFC 9110 §12.5.4); es otherwise. */
export function pickLocale(header: string | undefined): PageLocale {
  if (!header) {
    return 'es';
  }
  const ranked = header
    .split(',')
    .map((part, i) => {
      const [tag, ...params] = part.trim().toLowerCase().split(';');
      const q = params.map((p) => /^\s*q=([0-9.]+)\s*$/.exec(p)?.[1]).find(Boolean);
      return { lang: tag.trim().split('-')[0], q: q === undefined ? 1 : Number(q), i };
    })
    .filter((r) => r.q > 0 && (r.lang === 'es' || r.lang === 'en'))
    .sort((a, b) => b.q - a.q || a.i - b.i);
  return (ranked[0]?.lang as PageLocale | undefined) ?? 'es';
}

const TEXT = {
  es: {
    title: 'Verificación de documento',
    heading: 'Verificación del documento',
    created: 'Creado',
    pages: 'Páginas',
    hash: 'Huella SHA-256 del PDF actual',
    hashHelp: 'Una copia es este mismo documento, con todas sus firmas, si su huella SHA-256 coincide con esta.',
    status: {
      draft: 'Borrador',
      pending: 'Pendiente de firmas',
      completed: 'Completado: todos firmaron',
      rejected: 'Rechazado',
      expired: 'Vencido',
      cancelled: 'Cancelado',
    },
    signatures: 'Firmas',
    noSignatures: 'El documento aún no tiene firmas.',
    verified: 'Firma válida',
    notVerified: 'Firma no válida',
    email: 'Correo',
    authority: 'Identificación',
    signedAt: 'Fecha de firma',
    integrity: 'Integridad',
    intact: 'Válida: el contenido firmado no ha cambiado',
    broken: 'No válida: el contenido firmado fue alterado',
    modified: 'Modificado después de firmar: se añadió o cambió contenido que esta firma no permite',
    scope: 'Alcance',
    coversAll: 'Cubre el documento completo',
    coversRevision: (r: number, t: number) =>
      `Cubre la revisión ${r} de ${t}; las revisiones posteriores se añadieron después (por ejemplo, otras firmas)`,
    timestamp: 'Sello de tiempo',
    noTimestamp: 'Sin sello de tiempo verificable',
    certificate: 'Certificado',
    trusted: 'De confianza',
    untrusted: 'No es de confianza',
    certStatus: { good: 'vigente', revoked: 'revocado', unknown: 'estado desconocido' },
    pending: 'Firmantes pendientes',
    unnamed: 'Firmante',
    authorities: {
      EMAIL_LINK: 'Enlace por correo',
      EMAIL: 'Código por correo',
      SMS: 'Código por SMS',
      WHATSAPP: 'Código por WhatsApp',
      SAT: 'e.firma (SAT)',
      '': 'Firma hecha fuera de este servicio',
    } as Record<string, string>,
    trustTitle: '¿Qué significa «de confianza»?',
    trustText:
      'Que el certificado de la firma lo emitió la autoridad de certificación (CA) de este servicio, y que este servicio confía en ella. Un lector de PDF no la conoce de antemano: para que muestre lo mismo, instala el certificado de esta CA como certificado de confianza (en Adobe Acrobat: Preferencias › Firmas › Identidades y certificados de confianza › Importar).',
    trustLink: 'Descargar el certificado de la CA (ca.pem)',
    machine: 'Datos para programas',
    notFoundTitle: 'Documento no encontrado',
    notFound: 'No hay ningún documento con este código de verificación. Comprueba que el enlace o el código QR estén completos.',
    goneTitle: 'Documento no disponible',
    gone: 'Este documento ya no está disponible para su verificación.',
    busyTitle: 'Demasiadas consultas',
    busy: 'Este documento se ha consultado demasiadas veces en poco tiempo. Inténtalo de nuevo en un minuto.',
    failedTitle: 'No se puede verificar',
    failed: 'El documento no se puede verificar en este momento.',
  },
  en: {
    title: 'Document verification',
    heading: 'Document verification',
    created: 'Created',
    pages: 'Pages',
    hash: 'SHA-256 fingerprint of the current PDF',
    hashHelp: 'A copy is this very document, with all its signatures, if its SHA-256 fingerprint matches this one.',
    status: {
      draft: 'Draft',
      pending: 'Awaiting signatures',
      completed: 'Completed: everyone signed',
      rejected: 'Rejected',
      expired: 'Expired',
      cancelled: 'Cancelled',
    },
    signatures: 'Signatures',
    noSignatures: 'The document has no signatures yet.',
    verified: 'Valid signature',
    notVerified: 'Signature not valid',
    email: 'Email',
    authority: 'Identified by',
    signedAt: 'Signed at',
    integrity: 'Integrity',
    intact: 'Valid: the signed content has not changed',
    broken: 'Not valid: the signed content was altered',
    modified: 'Modified after signing: content this signature does not allow was added or changed',
    scope: 'Scope',
    coversAll: 'Covers the whole document',
    coversRevision: (r: number, t: number) =>
      `Covers revision ${r} of ${t}; the later revisions were added afterwards (other signatures, for example)`,
    timestamp: 'Time stamp',
    noTimestamp: 'No verifiable time stamp',
    certificate: 'Certificate',
    trusted: 'Trusted',
    untrusted: 'Not trusted',
    certStatus: { good: 'valid', revoked: 'revoked', unknown: 'status unknown' },
    pending: 'Signers still to sign',
    unnamed: 'Signer',
    authorities: {
      EMAIL_LINK: 'Email link',
      EMAIL: 'Email code',
      SMS: 'SMS code',
      WHATSAPP: 'WhatsApp code',
      SAT: 'e.firma (SAT)',
      '': 'Signed outside this service',
    } as Record<string, string>,
    trustTitle: 'What does “trusted” mean?',
    trustText:
      'That the signature’s certificate was issued by this service’s certificate authority (CA), which this service trusts. A PDF reader does not know this CA beforehand: to see the same there, install the CA’s certificate as a trusted certificate (in Adobe Acrobat: Preferences › Signatures › Identities & Trusted Certificates › Import).',
    trustLink: 'Download the CA certificate (ca.pem)',
    machine: 'Data for programs',
    notFoundTitle: 'Document not found',
    notFound: 'There is no document with this verification code. Check that the link or the QR code is complete.',
    goneTitle: 'Document not available',
    gone: 'This document is no longer available for verification.',
    busyTitle: 'Too many requests',
    busy: 'This document was looked up too many times in a short while. Try again in a minute.',
    failedTitle: 'Cannot verify',
    failed: 'The document cannot be verified right now.',
  },
};

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
export const esc = (v: string | number) => String(v).replace(/[&<>"']/g, (c) => ESCAPES[c]);

const pad2 = (n: number) => String(n).padStart(2, '0');

/** In UTC, like the signature appearances, so the page does not depend on the server's zone. */
export function when(iso: string, locale: PageLocale): string {
  const d = new Date(iso);
  if (!iso || Number.isNaN(d.getTime())) {
    return '—';
  }
  const date =
    locale === 'es'
      ? `${pad2(d.getUTCDate())}/${pad2(d.getUTCMonth() + 1)}/${d.getUTCFullYear()}`
      : `${d.getUTCFullYear()}-${pad2(d.getUTCMonth() + 1)}-${pad2(d.getUTCDate())}`;
  const time = `${pad2(d.getUTCHours())}:${pad2(d.getUTCMinutes())}:${pad2(d.getUTCSeconds())} UTC`;
  return `<time datetime="${esc(d.toISOString())}">${esc(`${date} ${time}`)}</time>`;
}

const STYLE = `
*{box-sizing:border-box}
body{margin:0;background:#f3f5f8;color:#1c2430;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,sans-serif;-webkit-text-size-adjust:100%}
main{max-width:42rem;margin:0 auto;padding:1rem .75rem 2rem}
header{margin:.25rem 0 1rem}
.brand{margin:0;font-weight:700;color:#2e5494;letter-spacing:.04em}
h1{margin:.1rem 0 0;font-size:1.35rem;line-height:1.25}
h2{font-size:1.1rem;margin:1.5rem 0 .6rem}
h3{margin:0;font-size:1.05rem;overflow-wrap:anywhere}
.card{background:#fff;border:1px solid #d9dee6;border-radius:10px;padding:.9rem 1rem;margin:0 0 .75rem}
.doc-name{margin:0 0 .4rem;font-size:1.15rem;overflow-wrap:anywhere}
dl{margin:.6rem 0 0}
dt{font-size:.8rem;color:#5a6575;margin-top:.5rem}
dd{margin:0;overflow-wrap:anywhere}
.hash{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:.85rem;word-break:break-all}
.help{font-size:.8rem;color:#5a6575;margin:.3rem 0 0}
.badge{display:inline-block;border-radius:999px;padding:.1rem .65rem;font-size:.85rem;font-weight:600;margin:.35rem 0 0}
.ok{background:#e3f4e8;color:#17663a}
.bad{background:#fbe6e6;color:#9b1c1c}
.wait{background:#fdf3dc;color:#7a5300}
.sig-ok{border-left:5px solid #2f9e5b}
.sig-bad{border-left:5px solid #c53030}
ul{padding:0;margin:0;list-style:none}
li.card{padding:.6rem 1rem}
.muted{color:#5a6575;font-size:.9rem}
footer{margin-top:2rem;font-size:.8rem;color:#5a6575}
a{color:#2e5494}
`;

/** `brand`: the name at the top, Sello's unless the document's account hides it (verify-page-brand.ts). */
export function page(locale: PageLocale, title: string, body: string, brand = 'Sello'): string {
  return `<!doctype html>
<html lang="${locale}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex, nofollow">
<meta name="referrer" content="no-referrer">
<title>${esc(title)} · ${esc(brand)}</title>
<style>${STYLE}</style>
</head>
<body>
<main>
<header><p class="brand">${esc(brand)}</p><h1>${esc(title)}</h1></header>
${body}
</main>
</body>
</html>
`;
}

function signatureCard(s: PublicSignature, locale: PageLocale): string {
  const t = TEXT[locale];
  const cls = s.verified ? 'ok' : 'bad';
  const rows: [string, string][] = [];
  if (s.email) {
    rows.push([t.email, esc(s.email)]);
  }
  rows.push(
    [t.authority, esc(t.authorities[s.authority] ?? s.authority)],
    [t.signedAt, when(s.signed_at, locale)],
    [t.integrity, esc(!s.valid ? t.broken : s.modified_after_signing ? t.modified : t.intact)],
    [t.scope, esc(s.covers_document ? t.coversAll : t.coversRevision(s.revision, s.total_revisions))],
    [
      t.timestamp,
      s.timestamp ? `${when(s.timestamp.time, locale)}<br><span class="muted">${esc(s.timestamp.authority)}</span>` : esc(t.noTimestamp),
    ],
    [t.certificate, esc(`${s.certificate_trusted ? t.trusted : t.untrusted} · ${t.certStatus[s.certificate_status]}`)],
  );
  return `<article class="card sig-${cls}">
<h3>${esc(s.signer_name || t.unnamed)}</h3>
<p class="badge ${cls}">${esc(s.verified ? t.verified : t.notVerified)}</p>
<dl>${rows.map(([k, v]) => `<dt>${esc(k)}</dt><dd>${v}</dd>`).join('')}</dl>
</article>`;
}

/** The page for a document. `jsonPath` is the machine-readable variant's path, linked at the foot. */
export function renderVerifyPage(v: PublicVerification, locale: PageLocale, jsonPath: string, brand?: string): string {
  const t = TEXT[locale];
  const statusClass = v.status === 'completed' ? 'ok' : v.status === 'pending' || v.status === 'draft' ? 'wait' : 'bad';
  const summary = `<section class="card">
<h2 class="doc-name">${esc(v.name)}</h2>
<p class="badge ${statusClass}">${esc(t.status[v.status])}</p>
<dl>
<dt>${esc(t.created)}</dt><dd>${when(v.created_at, locale)}</dd>
<dt>${esc(t.pages)}</dt><dd>${esc(v.page_count)}</dd>
<dt>${esc(t.hash)}</dt><dd class="hash">${esc(v.sha256)}</dd>
</dl>
<p class="help">${esc(t.hashHelp)}</p>
</section>`;
  const signatures = `<section>
<h2>${esc(t.signatures)} (${v.signatures.length})</h2>
${v.signatures.length ? v.signatures.map((s) => signatureCard(s, locale)).join('\n') : `<p class="muted">${esc(t.noSignatures)}</p>`}
</section>`;
  const pending = v.pending_signers.length
    ? `<section>
<h2>${esc(t.pending)} (${v.pending_signers.length})</h2>
<ul>${v.pending_signers
        .map(
          (p) =>
            `<li class="card"><strong>${esc(p.name || t.unnamed)}</strong><br><span class="muted">${esc(p.identifier)} · ${esc(t.authorities[p.authority] ?? p.authority)}</span></li>`,
        )
        .join('')}</ul>
</section>`
    : '';
  const trust = v.signatures.length
    ? `<section class="card" id="trust">
<h2>${esc(t.trustTitle)}</h2>
<p>${esc(t.trustText)}</p>
<p><a href="/pki/ca.pem" download="ca.pem">${esc(t.trustLink)}</a></p>
</section>`
    : '';
  const footer = `<footer><a href="${esc(jsonPath)}" rel="nofollow">${esc(t.machine)} (JSON)</a></footer>`;
  return page(locale, t.heading, [summary, signatures, pending, trust, footer].filter(Boolean).join('\n'), brand);
}

export type VerifyProblem = 'not-found' | 'gone' | 'busy' | 'failed';

/** The page shown instead when there is nothing to show. */
export function renderVerifyProblem(problem: VerifyProblem, locale: PageLocale): string {
  const t = TEXT[locale];
  const [title, text] =
    problem === 'not-found'
      ? [t.notFoundTitle, t.notFound]
      : problem === 'gone'
        ? [t.goneTitle, t.gone]
        : problem === 'busy'
          ? [t.busyTitle, t.busy]
          : [t.failedTitle, t.failed];
  return page(locale, title, `<section class="card"><p>${esc(text)}</p></section>`);
}
