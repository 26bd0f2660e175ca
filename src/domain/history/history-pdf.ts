// GET /api/v1/document/{documentId}/history/pdf: the document's history as a readable PDF, in the
// reader's language when asked (`lang`), else the document's: every entry (time, action, actor,
// address, details), the chain's head hash and whether the chain verifies. The service seals it with a PAdES B-T signature (a one-time
// certificate naming the service, a time stamp), so the copy can be checked offline with pdfsig.
//
// Laid out by pdfmake (its worker pool, as pdfmake templates are). Every text that comes from the
// history goes in as a field value, never into the definition itself: pdfmake-template.ts replaces
// {{placeholders}} in the definition's strings, and a signer's name or a rejection reason could
// hold one; a value is inserted as it is.
import { AppError } from '../errors.js';
import type { Deps } from '../deps.js';
import { findDocumentForHistory } from '../../store/documents-repo.js';
import { explicitLanguage } from '../signing/workflow-language.js';
import { SEAL, sealServicePdf } from '../signing/seal-service-pdf.js';
import { getHistory, type DocumentHistory } from './get-history.js';
import { historyLabels, type HistoryLabels } from './history-labels.js';
import { historyPeople } from './history-people.js';

export async function historyPdf(
  deps: Pick<Deps, 'db' | 'clock' | 'config' | 'pki' | 'externalTsa' | 'signerKeys' | 'templates'>,
  opts: { accountId: string; ticket: string; language?: 'es' | 'en' },
): Promise<{ pdf: Buffer; name: string }> {
  const history = await getHistory(deps, opts);
  const doc = await findDocumentForHistory(deps.db, opts.ticket, opts.accountId);
  if (!doc) {
    throw new AppError('DOCUMENT_NOT_FOUND', `no document ${opts.ticket}`);
  }
  // The reader's language when they ask for one (the panel sends its own); else the document's.
  const language = opts.language ?? explicitLanguage(doc.workflow) ?? deps.config.defaultLanguage;
  const labels = historyLabels(language);
  const now = deps.clock.now();
  // Signers by name and contact, not by their ids.
  const people = await historyPeople(deps.db, doc.id);
  const { definition, fields } = layout(
    history,
    doc.name,
    { ...labels, actor: (a) => people.get(a) || labels.actor(a) },
    now,
    doc.timeZone,
    people,
  );
  const unsigned = await deps.templates.render('pdfmake', Buffer.from(JSON.stringify(definition)), { fields, tables: new Map() });
  return { pdf: await seal(deps, unsigned, labels, now, language, doc.id), name: `${labels.fileName}-${opts.ticket}.pdf` };
}

/** The pdfmake definition, with every text from the history as a {{field}}. */
function layout(h: DocumentHistory, name: string, l: HistoryLabels, now: Date, timeZone: string, people: Map<string, string>) {
  const fields = new Map<string, string>();
  const put = (id: string, text: string) => {
    fields.set(id, text);
    return `{{${id}}}`;
  };
  const when = (iso: string) =>
    `${new Intl.DateTimeFormat(l.locale, { dateStyle: 'medium', timeStyle: 'medium', timeZone }).format(new Date(iso))} (${timeZone})`;
  const rows = h.entries.map((e, i) => [
    String(e.seq),
    put(`t${i}`, when(e.at)),
    put(`a${i}`, l.action(e.action)),
    put(`w${i}`, l.actor(e.actor)),
    put(`ip${i}`, e.ip ?? '—'),
    { text: put(`d${i}`, detailsText(e.details, people)), fontSize: 6.5 },
  ]);
  const head = h.entries.at(-1)?.hash ?? '';
  const verdict = h.chain.valid ? l.chainValid(h.chain.entries) : l.chainBroken(h.chain.first_broken_seq);
  const definition = {
    pageSize: 'A4',
    pageMargins: [40, 40, 40, SEAL.height + SEAL.margin + 10],
    info: { title: put('title', `${l.title}: ${name}`) },
    defaultStyle: { fontSize: 8 },
    content: [
      { text: put('heading', l.title), fontSize: 16, bold: true, margin: [0, 0, 0, 6] },
      { text: put('doc', `${l.document}: ${name}`), fontSize: 10 },
      { text: put('ticket', `${l.ticket}: ${h.document_ticket}`), fontSize: 10 },
      { text: put('made', `${l.generated}: ${when(now.toISOString())}`), fontSize: 10, margin: [0, 0, 0, 8] },
      {
        table: {
          headerRows: 1,
          widths: [18, 80, 60, 80, 55, '*'],
          body: [l.columns.map((c, i) => ({ text: put(`c${i}`, c), bold: true })), ...rows],
        },
        layout: 'lightHorizontalLines',
      },
      { text: put('verdict', verdict), fontSize: 10, bold: true, margin: [0, 10, 0, 2] },
      { text: put('headhash', `${l.headHash}: ${head}`), fontSize: 8 },
      { text: put('howto', l.howToVerify), fontSize: 8, color: '#555555', margin: [0, 6, 0, 0] },
    ],
  };
  return { definition, fields };
}

/**
 * An entry's details as "key: value" pairs; a `signer_id` the document knows is followed by that
 * signer's name, so "Invitation sent" says to whom. Long unbroken values (hashes, ids) get zero-width
 * spaces every 16 characters: pdfmake breaks lines only at break opportunities, and a 64-digit
 * hash would otherwise run off the page. Extracted text keeps every character.
 */
function detailsText(details: Record<string, unknown>, people: Map<string, string>): string {
  const named = (k: string, v: unknown) => (k === 'signer_id' && typeof v === 'string' && people.get(`signer:${v}`)) || '';
  return Object.entries(details)
    .map(([k, v]) => {
      const who = named(k, v);
      return `${k}: ${typeof v === 'string' ? v : JSON.stringify(v)}${who ? ` (${who})` : ''}`;
    })
    .join('; ')
    .replace(/\S{16}(?=\S)/g, (m) => `${m}\u200b`);
}

/** The service's seal: a PAdES B-T signature with a box at the foot of the last page. */
async function seal(
  deps: Pick<Deps, 'db' | 'config' | 'pki' | 'externalTsa' | 'signerKeys'>,
  pdf: Buffer,
  l: HistoryLabels,
  now: Date,
  language: 'es' | 'en',
  documentId: string,
): Promise<Buffer> {
  return sealServicePdf(deps, {
    pdf,
    fieldName: 'Sello-history',
    sealName: l.sealName,
    sealLabel: l.sealLabel,
    reason: l.sealReason,
    now,
    language,
    documentId,
  });
}
