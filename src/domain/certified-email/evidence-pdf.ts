// GET /api/certifiedEmail/{ticket}/evidence: the certified email's evidence as a readable PDF in
// the document's language (what was sent, its hash, when the SMTP server took it and what it
// answered, delivery reports, the first open seen through the image apart from the first download
// through the link), sealed by the service as the history PDF is (PAdES B-T), and NOM-151 stamped
// when the document is (a document time stamp over the sealed file, billed as one stamp). The
// stamps piece is spent in the transaction that keeps the file, once the stamp is obtained: a
// failure before the file is kept (a crash, the database, the blob store) spends nothing.
//
// The issued file is kept with a fingerprint of the evidence it states: asked again while nothing
// new is known, the same file is served, so repeated downloads neither differ nor spend stamps.
// Every text from the client or the recipient (subject, message, user agent) goes in as a pdfmake
// field value, never into the definition, as in history-pdf.ts.
import { createHash } from 'node:crypto';
import type { Transaction } from 'kysely';
import type { Deps } from '../deps.js';
import { requirePieceLeft } from '../packages/consume-piece.js';
import { SEAL, sealServicePdf } from '../signing/seal-service-pdf.js';
import { explicitLanguage } from '../signing/workflow-language.js';
import { applyPdfStamp } from '../nom151/apply-pdf-stamp.js';
import { recordApiStampIn } from '../nom151/stamp-hash.js';
import type { IssuedStamp } from '../nom151/stamp-provider.js';
import type { Database } from '../../store/schema.js';
import { saveEvidencePdf, underEvidenceLock, type CertifiedEmailRow } from '../../store/certified-email-repo.js';
import { certifiedEmailData, requireCertifiedEmail } from './get-certified-email-data.js';
import { evidenceLabels, type EvidenceLabels } from './evidence-labels.js';
import { putHeldBlob } from '../../store/blob-fence.js';

export async function certifiedEmailEvidencePdf(
  deps: Deps,
  opts: { accountId: string; ticket: string },
): Promise<{ pdf: Buffer; name: string }> {
  const c = await requireCertifiedEmail(deps, opts.accountId, opts.ticket);
  const language = explicitLanguage(c.document_workflow) ?? deps.config.defaultLanguage;
  const l = evidenceLabels(language);
  const name = `${l.fileName}-${c.ticket}.pdf`;
  const fingerprint = createHash('sha256')
    .update(JSON.stringify({ data: certifiedEmailData(c, ''), language, nom151: c.document_nom151 }))
    .digest('hex');
  if (c.evidence_pdf_sha256 && c.evidence_fingerprint === fingerprint) {
    return { pdf: await deps.blobs.get(c.evidence_pdf_sha256), name };
  }
  return oneAtATime(() =>
    underEvidenceLock(deps.db, c.id, async (trx) => {
      // Another request may have issued it while this one waited for the lock.
      const again = await requireCertifiedEmail(deps, opts.accountId, opts.ticket);
      if (again.evidence_pdf_sha256 && again.evidence_fingerprint === fingerprint) {
        return { pdf: await deps.blobs.get(again.evidence_pdf_sha256), name };
      }
      return { pdf: await issueEvidencePdf(deps, trx, c, l, language, fingerprint), name };
    }),
  );
}

// One evidence PDF issued at a time in this process. The lock's transaction holds a pooled
// connection while the work inside takes others (reads, sealing, the stamp's record): as many first
// downloads at once as the pool has connections would each hold one and wait for another, for
// good. One at a time, a process holds at most one such connection; other processes have their own
// pools, and the advisory lock still keeps any two from issuing the same file.
let issuing: Promise<unknown> = Promise.resolve();
function oneAtATime<T>(work: () => Promise<T>): Promise<T> {
  const run = issuing.then(work, work);
  issuing = run.catch(() => undefined);
  return run;
}

async function issueEvidencePdf(
  deps: Deps,
  trx: Transaction<Database>,
  c: CertifiedEmailRow,
  l: EvidenceLabels,
  language: 'es' | 'en',
  fingerprint: string,
): Promise<Buffer> {
  const now = deps.clock.now();
  if (c.document_nom151) {
    // Refused before any work when the account has no stamp left (402, nothing issued).
    await requirePieceLeft(deps.db, { accountId: c.account_id, kind: 'stamps', at: now });
  }
  const { definition, fields } = layout(c, l, now);
  const unsigned = await deps.templates.render('pdfmake', Buffer.from(JSON.stringify(definition)), { fields, tables: new Map() });
  let pdf = await sealServicePdf(deps, {
    pdf: unsigned,
    fieldName: 'Sello-certified-email',
    sealName: l.sealName,
    sealLabel: l.sealLabel,
    reason: l.sealReason,
    now,
    language,
    documentId: c.document_id,
  });
  let issued: IssuedStamp | undefined;
  if (c.document_nom151) {
    const stamped = await applyPdfStamp(deps, pdf);
    issued = stamped.issued;
    pdf = stamped.pdf;
  }
  // The file first (a blob left without a row is harmless: blobs are named by their hash), then
  // the piece, the stamp's record and the file's row, in the lock's transaction: all, or none.
  const sha256 = await putHeldBlob(trx, deps.blobs, pdf);
  if (issued) {
    await recordApiStampIn(trx, deps, c.account_id, 'pdf', issued);
  }
  await saveEvidencePdf(trx, c.id, { sha256, fingerprint });
  return pdf;
}

function layout(c: CertifiedEmailRow, l: EvidenceLabels, now: Date) {
  const fields = new Map<string, string>();
  let n = 0;
  const put = (text: string) => {
    const id = `f${n++}`;
    fields.set(id, text);
    return `{{${id}}}`;
  };
  const when = (d: Date | string | null) =>
    d
      ? `${new Intl.DateTimeFormat(l.locale, { dateStyle: 'medium', timeStyle: 'medium', timeZone: c.time_zone }).format(new Date(d))} (${c.time_zone})`
      : null;
  // Long unbroken values (hashes, ids) get zero-width spaces: pdfmake breaks lines only there.
  const breakable = (s: string) => s.replace(/\S{16}(?=\S)/g, (m) => `${m}\u200b`);
  const rows: [string, string][] = [
    [l.document, c.document_name],
    [l.ticket, c.ticket],
    [l.documentSha256, breakable(c.document_sha256 ?? l.notSent)],
    [l.delivery, c.attached === null ? l.notSent : c.attached ? l.attached : l.linkOnly],
    [l.recipient, c.recipient],
    [l.subject, c.subject],
    [l.message, c.message || '—'],
    [l.messageId, breakable(c.header_message_id ?? l.notSent)],
    [l.contentSha256, breakable(c.raw_sha256 && (c.sent_at || (c.refused_at && c.refused_by_server !== false)) ? c.raw_sha256 : l.notSent)],
    [l.contentBytes, c.raw_sha256 && c.raw_bytes !== null ? String(c.raw_bytes) : l.notSent],
    [l.queued, when(c.queued_at) ?? l.notSent],
    [l.sent, when(c.sent_at) ?? l.notYet],
    [l.smtpReply, breakable(c.smtp_reply ?? l.notYet)],
    ...(c.refused_at
      ? ([[c.refused_by_server === false ? l.notHandedOver : l.refused, `${when(c.refused_at)}: ${c.refusal_reply ?? ''}`]] as [
          string,
          string,
        ][])
      : []),
    [l.delivered, when(c.delivered_at) ?? l.notYet],
    [l.bounced, when(c.bounced_at) ?? l.notYet],
    [l.opened, c.opened_at ? `${when(c.opened_at)}, ${l.visitor(c.open_ip, c.open_user_agent)}` : l.notYet],
    [l.downloaded, c.downloaded_at ? `${when(c.downloaded_at)}, ${l.visitor(c.download_ip, c.download_user_agent)}` : l.notYet],
  ];
  const reports = c.delivery_reports.map((r) =>
    [
      when(r.received_at) ?? '',
      r.verified === false ? `${r.action} (${l.unverified})` : r.action,
      r.status ?? '—',
      breakable(r.diagnostic_code ?? '—'),
      breakable(r.reporting_mta ?? '—'),
    ].map((t) => put(t)),
  );
  const definition = {
    pageSize: 'A4',
    pageMargins: [40, 40, 40, SEAL.height + SEAL.margin + 10],
    info: { title: put(`${l.title}: ${c.document_name}`) },
    defaultStyle: { fontSize: 9 },
    content: [
      { text: put(l.title), fontSize: 16, bold: true, margin: [0, 0, 0, 6] },
      { text: put(`${l.generated}: ${when(now)}`), fontSize: 10, margin: [0, 0, 0, 8] },
      {
        table: { widths: [170, '*'], body: rows.map(([k, v]) => [{ text: put(k), bold: true }, put(v)]) },
        layout: 'lightHorizontalLines',
      },
      ...(reports.length
        ? [
            { text: put(l.reports), fontSize: 11, bold: true, margin: [0, 10, 0, 4] },
            {
              table: {
                headerRows: 1,
                widths: [90, 50, 40, '*', 100],
                body: [l.reportColumns.map((h) => ({ text: put(h), bold: true })), ...reports],
              },
              layout: 'lightHorizontalLines',
              fontSize: 7.5,
            },
          ]
        : []),
      { text: put(l.explain), fontSize: 8, margin: [0, 10, 0, 0] },
      { text: put(l.howToVerify), fontSize: 8, color: '#555555', margin: [0, 6, 0, 0] },
    ],
  };
  return { definition, fields };
}
