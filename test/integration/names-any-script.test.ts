// Names in any script through the service: nine signers named in Polish, Russian, Greek, Chinese,
// Japanese, Arabic, Hebrew, Hindi and Korean sign one document; an Arabic-named holder endorses it to a
// Japanese name; the history PDF lists them; a certified email's evidence states them. Each file
// is judged by pdftotext (every name given back) and pdfsig (every signature valid and trusted).
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EndorsementInput } from '../../src/client/index.js';
import { movableClock } from '../helpers/flow-clock.js';
import { startMailFlow, type MailFlow } from '../helpers/mail-flow.js';
import { A4, makePdf } from '../helpers/pdfs.js';
import { publicCall } from '../helpers/public-call.js';
import { openAndSign } from '../helpers/signer-page.js';
import { pdfsig, qpdfCheckAsync } from '../helpers/validators.js';

const NAMES = ['Łukasz Wójcik', 'Ольга Петрова', 'Νίκος Παπαδόπουλος', '王伟', '山田太郎', 'محمد علي', 'דוד כהן', 'अर्जुन शर्मा', '김민준'];
/** pdftotext marks a right-to-left line with directional embeddings (U+202B … U+202C). */
const plain = (text: string) => text.replace(/[\u202a-\u202e]/g, '');

// Behind the real time, within the service CA's first hour, as in certified-email.test.ts: pdfsig
// judges the seals at the real time, which must not come before their certificates.
const clock = movableClock(new Date(Date.now() - 50 * 60_000));
let f: MailFlow;
let dir: string;
let rootPem: string;

beforeAll(async () => {
  f = await startMailFlow({ clock });
  dir = mkdtempSync(join(tmpdir(), 'sello-scripts-'));
  rootPem = await (await fetch(`${f.s.baseUrl}/pki/ca.pem`)).text();
}, 120_000);
afterAll(async () => {
  await f?.close();
  rmSync(dir, { recursive: true, force: true });
});

/**
 * The text poppler extracts in its reading order (not -raw: content order would leave the words of
 * a right-to-left name in the order they are drawn, left to right).
 */
function pdfText(pdf: Uint8Array): string {
  const path = join(dir, `t${Math.random().toString(36).slice(2)}.pdf`);
  writeFileSync(path, pdf);
  return plain(execFileSync('pdftotext', [path, '-'], { encoding: 'utf8' }).replace(/\u200b/g, ''));
}

async function expectAllValid(pdf: Uint8Array, count: number) {
  const checked = await pdfsig(pdf, rootPem);
  expect(checked.signatures, checked.output).toHaveLength(count);
  for (const sig of checked.signatures) {
    expect(sig.valid, sig.block).toBe(true);
    expect(sig.trusted, sig.block).toBe(true);
  }
  expect(checked.signatures.at(-1)!.totalDocumentSigned, checked.output).toBe(true);
  expect((await qpdfCheckAsync(pdf)).ok).toBe(true);
}

describe('names in any script', () => {
  let ticket: string;

  it('nine signers sign one document: each signature box shows its name, pdftotext gives each back, pdfsig finds all valid', async () => {
    const doc = await f.s.client.createDocument({
      b64_doc: (await makePdf([A4])).toString('base64'),
      name: 'Acuerdo',
      stickers: NAMES.map((name, i) => ({
        authority: 'EMAIL_LINK',
        data: `s${i}@example.com`,
        name,
        page: 0,
        rect: { lx: 50, ly: 30 + i * 78, tx: 300, ty: 100 + i * 78 },
      })),
    });
    ticket = doc.document_ticket;
    for (const sticker of doc.stickers) {
      await openAndSign(f.s.baseUrl, sticker.signer_url);
    }
    const signed = (await f.s.client.downloadDocument('original', ticket)).bytes;
    const lines = pdfText(signed).split('\n');
    for (const name of NAMES) {
      expect(lines).toContain(name);
    }
    await expectAllValid(signed, NAMES.length);
    // The service's own verifier: each revision's new fonts and appearance are allowed changes.
    const report = await f.s.client.signatureReport(ticket);
    expect(report.documentIntegrity).toBe('intact');
    expect(report.attacks).toEqual([]);
    expect(report.firmas.map((x) => [x.validSignature, x.modifiedAfterSigning])).toEqual(NAMES.map(() => [true, false]));
  }, 120_000);

  it('the history PDF names every signer, sealed valid', async () => {
    const history = await f.s.client.historyPdf(ticket);
    const shown = pdfText(history);
    for (const name of NAMES) {
      expect(shown).toContain(name);
    }
    await expectAllValid(history, 1);
  }, 60_000);

  it('an Arabic-named holder endorses to a Japanese name: the endorsement box states both, every signature stays valid', async () => {
    const doc = await f.s.client.createDocument({
      b64_doc: (await makePdf([A4])).toString('base64'),
      name: 'Pagaré',
      stickers: [{ authority: 'EMAIL_LINK', data: 'm@example.com', name: 'محمد علي', page: 0, rect: { lx: 60, ly: 60, tx: 300, ty: 140 } }],
    });
    await openAndSign(f.s.baseUrl, doc.stickers[0].signer_url);
    const created = await f.s.client.endorseDocument(doc.document_ticket, {
      endorsement: { type: 'propiedad', text: 'Páguese a la orden de 山田太郎' },
      endorser: { name: 'محمد علي', authority: 'EMAIL_LINK', data: 'm@example.com' },
      endorsee: { name: '山田太郎', email: 'yamada@example.com' },
    } as EndorsementInput);
    const token = created.signer_url.split('/').pop()!;
    const signed = await publicCall(f.s.baseUrl, 'POST', `/sign/api/${token}/sign`, {
      signature: { type: 'typed', text: 'محمد علي' },
      consent: true,
    });
    expect(signed.status, JSON.stringify(signed.json)).toBe(200);
    const after = (await f.s.client.downloadDocument('original', doc.document_ticket)).bytes;
    const shown = pdfText(after);
    expect(shown).toContain('Páguese a la orden de 山田太郎');
    expect(shown).toContain('A favor de: 山田太郎');
    expect(shown).toContain('محمد علي');
    await expectAllValid(after, 2);
  }, 120_000);

  it("a certified email's evidence states the names in its document name and message, sealed valid", async () => {
    const created = await f.s.client.createDocument({
      b64_doc: (await makePdf([A4])).toString('base64'),
      name: NAMES.slice(0, 4).join(', '),
      certified_email: { to: 'carla@example.com', subject: 'Acuerdo', message: NAMES.join('\n') },
    });
    await f.jobs.runDue();
    const evidence = await f.s.client.certifiedEmailEvidence(created.document_ticket);
    const shown = pdfText(evidence);
    for (const name of NAMES) {
      expect(shown).toContain(name);
    }
    await expectAllValid(evidence, 1);
  }, 60_000);
});
