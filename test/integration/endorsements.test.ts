// Endorsements of completed documents (decisions.md "Endorsements"): the endorser signs through the
// link the API answers, the endorsement is a further signature revision stating it, every earlier
// signature stays valid (pdfsig, qpdf, the service's own verifier), and only the holder endorses next.
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EndorsementInput } from '../../src/client/index.js';
import { apiError } from '../helpers/api-error.js';
import { listMessages } from '../../src/store/mail-repo.js';
import { type JobRunner, jobRunner } from '../helpers/jobs.js';
import { expectLta } from '../helpers/universal-checks.js';
import { recordUniversalFailure } from '../../src/domain/universal/store-universal.js';
import { A4, makePdf, pdfShownText } from '../helpers/pdfs.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { pdfsig, qpdfCheckAsync } from '../helpers/validators.js';
import { publicCall } from '../helpers/public-call.js';
import { documentEvents } from '../helpers/events.js';

let s: TestServer;
let jobs: JobRunner;
let rootPem: string;
let pdf: string;

beforeAll(async () => {
  s = await startTestServer();
  jobs = jobRunner(s.connectionString, s.deps);
  rootPem = await (await fetch(`${s.baseUrl}/pki/ca.pem`)).text();
  pdf = (await makePdf([A4, A4])).toString('base64');
});
afterAll(async () => {
  await jobs?.close();
  await s?.close();
});

const call = (method: string, path: string, body?: unknown) => publicCall(s.baseUrl, method, path, body);

const typed = (text: string) => ({ signature: { type: 'typed', text }, consent: true });
const tokenOf = (url: string) => url.split('/').pop()!;

/** A document Ana has signed (completed), with its ticket. */
async function completedDocument(): Promise<string> {
  const doc = await s.client.createDocument({
    b64_doc: pdf,
    name: 'Pagaré',
    stickers: [
      { authority: 'EMAIL_LINK', data: 'ana@example.com', name: 'Ana Pérez', page: 0, rect: { lx: 60, ly: 60, tx: 260, ty: 130 } },
    ],
  });
  const signed = await call('POST', `/sign/api/${tokenOf(doc.stickers[0].signer_url)}/sign`, typed('Ana Pérez'));
  expect(signed.json).toMatchObject({ status: 'signed', document_status: 'completed' });
  return doc.document_ticket;
}

/** An endorsement body; the fields are given as the tests vary them, and checked by the server. */
const endorsement = (endorser: { name: string; authority: string; data: string }, endorsee: Record<string, string>, type = 'propiedad') =>
  ({
    endorsement: { type, text: `Páguese a la orden de ${endorsee.name}` },
    endorser,
    endorsee,
  }) as EndorsementInput;
/** Proves an EMAIL endorser by the code sent to their address (to sign, or to decline). */
async function proveByCode(token: string, email: string) {
  expect((await call('POST', `/sign/api/${token}/otp`)).status).toBe(200);
  const mail = (await listMessages(s.deps, 50)).find((m) => m.recipient === email && m.kind === 'otp')!;
  const code = /\b(\d{6})\b/.exec(mail.body_text)![1];
  expect((await call('POST', `/sign/api/${token}/otp/verify`, { code })).status).toBe(200);
}

async function signWithCode(token: string, email: string, name: string) {
  await proveByCode(token, email);
  return call('POST', `/sign/api/${token}/sign`, typed(name));
}

const ANA = { name: 'Ana Pérez', authority: 'EMAIL_LINK', data: 'ana@example.com' };
const BEATRIZ = { name: 'Beatriz Gómez', email: 'beatriz@example.com' };

const eventsOf = (ticket: string) => documentEvents(s.deps.db, ticket);

describe('endorsements', () => {
  it('the endorser signs a completed document through the link; the revision states the endorsement and every signature stays valid', async () => {
    const ticket = await completedDocument();
    const before = (await s.client.downloadDocument('original', ticket)).bytes;

    const created = await s.client.endorseDocument(ticket, endorsement(ANA, BEATRIZ));
    expect(created.sequence).toBe(1);
    expect(created.signer_url).toMatch(new RegExp(`^${s.baseUrl}/sign/[A-Za-z0-9_-]{43}$`));
    const token = tokenOf(created.signer_url);

    const info = await call('GET', `/sign/api/${token}`);
    expect(info.status).toBe(200);
    expect(info.json.document.status).toBe('completed');
    expect(info.json.endorsement).toEqual({
      endorsement_id: created.endorsement_id,
      type: 'propiedad',
      text: 'Páguese a la orden de Beatriz Gómez',
      endorsee: { name: 'Beatriz Gómez' },
      status: 'pending',
    });
    // The endorser's box is on the last page; the document's own signers are listed without them.
    expect(info.json.boxes).toHaveLength(1);
    expect(info.json.boxes[0].page).toBe(1);
    expect(info.json.signers).toEqual([{ name: 'Ana Pérez', status: 'signed' }]);

    const signed = await call('POST', `/sign/api/${token}/sign`, typed('Ana Pérez'));
    expect(signed.status).toBe(200);
    expect(signed.json).toMatchObject({ status: 'signed', document_status: 'completed' });

    const after = (await s.client.downloadDocument('original', ticket)).bytes;
    expect(after.subarray(0, before.length).equals(before)).toBe(true);
    const checked = await pdfsig(after, rootPem);
    expect(checked.signatures, checked.output).toHaveLength(2);
    for (const sig of checked.signatures) {
      expect(sig.valid, sig.block).toBe(true);
      expect(sig.trusted, sig.block).toBe(true);
    }
    expect(checked.signatures[1].totalDocumentSigned).toBe(true);
    expect((await qpdfCheckAsync(after)).output).toMatch(/No syntax or stream encoding errors found/);
    const shown = pdfShownText(after);
    for (const line of [
      'Endoso en propiedad',
      'Páguese a la orden de Beatriz Gómez',
      'A favor de: Beatriz Gómez',
      'Endosante: Ana Pérez',
    ]) {
      expect(shown).toContain(line);
    }
    expect(shown).toMatch(/Firmado: \d\d\/\d\d\/\d{4}/);

    // The service's verifier: a new signature field with its appearance is allowed after a signature.
    const report = await s.client.signatureReport(ticket);
    expect(report.documentIntegrity).toBe('intact');
    expect(report.attacks).toEqual([]);
    expect(report.firmas.map((f) => [f.validSignature, f.modifiedAfterSigning])).toEqual([
      [true, false],
      [true, false],
    ]);
    expect(report.endorsements?.map((e) => [e.endorsement_id, e.status])).toEqual([[created.endorsement_id, 'signed']]);

    const chain = await s.client.listEndorsements(ticket);
    expect(chain.holder).toEqual({ name: 'Beatriz Gómez', email: 'beatriz@example.com', rfc: null });
    expect(chain.endorsements[0]).toMatchObject({
      sequence: 1,
      type: 'propiedad',
      endorser: { name: 'Ana Pérez', authority: 'EMAIL_LINK', data: 'ana@example.com' },
      status: 'signed',
    });
    expect(chain.endorsements[0].signed_at).not.toBeNull();

    // The listing still shows the document's own signers only, and the document completed.
    const listed = (await s.client.listDocuments()).documents.find((d) => d.document_ticket === ticket)!;
    expect(listed.status).toBe('completed');
    expect(listed.signers.map((x) => x.data)).toEqual(['ana@example.com']);

    const events = await eventsOf(ticket);
    expect(events.map((e) => e.kind)).toEqual(['original_signed', 'document_completed', 'original_signed']);
    expect((events[2].meta as { endorsement_id?: string }).endorsement_id).toBe(created.endorsement_id);
    expect((events[0].meta as { endorsement_id?: string }).endorsement_id).toBeUndefined();

    const history = await s.client.documentHistory(ticket);
    const actions = history.entries.map((e) => e.action);
    expect(actions).toContain('endorsement_requested');
    expect(actions.at(-1)).toBe('endorsed');
    expect(history.entries.at(-1)!.details).toMatchObject({
      endorsement_id: created.endorsement_id,
      sequence: 1,
      endorsee: 'Beatriz Gómez',
    });

    // The link is used: a second signature is refused.
    const again = await call('POST', `/sign/api/${token}/sign`, typed('Ana Pérez'));
    expect([again.status, again.json.error.code]).toEqual([409, 'ALREADY_SIGNED']);
  });

  it('only the holder endorses after the first; one endorsement waits at a time; a declined one leaves the chain as it was', async () => {
    const ticket = await completedDocument();
    const first = await s.client.endorseDocument(ticket, endorsement(ANA, BEATRIZ));
    // While the first waits, no other may be asked for.
    const waiting = await apiError(s.client.endorseDocument(ticket, endorsement(ANA, { name: 'Carla', email: 'carla@example.com' })));
    expect([waiting.status, waiting.code]).toEqual([409, 'ENDORSEMENT_PENDING']);
    expect(waiting.details).toEqual({ endorsement_id: first.endorsement_id });
    expect((await call('POST', `/sign/api/${tokenOf(first.signer_url)}/sign`, typed('Ana'))).status).toBe(200);

    // Beatriz holds it now: Ana, or a phone, is not her.
    for (const endorser of [ANA, { name: 'Beatriz Gómez', authority: 'SMS', data: '+525512345678' }]) {
      const e = await apiError(s.client.endorseDocument(ticket, endorsement(endorser, { name: 'Carla', email: 'carla@example.com' })));
      expect([e.status, e.code]).toEqual([409, 'NOT_HOLDER']);
      expect(e.message).toContain('beatriz@example.com');
    }
    // Her link would come back to the account, which could then sign in her name: a holder proves it by a code.
    const asLink = await apiError(
      s.client.endorseDocument(
        ticket,
        endorsement({ name: 'Beatriz Gómez', authority: 'EMAIL_LINK', data: 'beatriz@example.com' }, BEATRIZ),
      ),
    );
    expect(asLink.code).toBe('NOT_HOLDER');
    expect(asLink.message).toContain('EMAIL with beatriz@example.com');
    const beatriz = { name: 'Beatriz Gómez', authority: 'EMAIL', data: 'Beatriz@Example.com' };
    const second = await s.client.endorseDocument(ticket, endorsement(beatriz, { name: 'Carla Ruiz', rfc: 'RUCC800101AB1' }, 'garantia'));
    expect(second.sequence).toBe(2);

    // Beatriz refuses: the endorsement is declined, the document stays completed, no rejection event.
    await proveByCode(tokenOf(second.signer_url), 'beatriz@example.com');
    const declined = await call('POST', `/sign/api/${tokenOf(second.signer_url)}/reject`, { reason: 'No es el monto acordado' });
    expect(declined.status).toBe(200);
    expect(declined.json).toMatchObject({ status: 'rejected', document_status: 'completed' });
    const chain = await s.client.listEndorsements(ticket);
    expect(chain.endorsements.map((e) => e.status)).toEqual(['signed', 'declined']);
    expect(chain.holder?.name).toBe('Beatriz Gómez');
    expect((await s.client.listDocuments()).documents.find((d) => d.document_ticket === ticket)!.status).toBe('completed');
    expect((await eventsOf(ticket)).map((e) => e.kind)).not.toContain('document_rejected');

    // She endorses again, this time signing: Carla holds it, known by her RFC and her email.
    const carla = { name: 'Carla Ruiz', rfc: 'RUCC800101AB1', email: 'carla@example.com' };
    const third = await s.client.endorseDocument(ticket, endorsement(beatriz, carla, 'procuracion'));
    expect(third.sequence).toBe(3);
    expect((await signWithCode(tokenOf(third.signer_url), 'beatriz@example.com', 'Beatriz')).status).toBe(200);
    expect((await s.client.listEndorsements(ticket)).holder).toEqual({
      name: 'Carla Ruiz',
      email: 'carla@example.com',
      rfc: 'RUCC800101AB1',
    });
    const otherAddress = await apiError(
      s.client.endorseDocument(ticket, endorsement({ name: 'Carla Ruiz', authority: 'EMAIL', data: 'carla.ruiz@example.com' }, BEATRIZ)),
    );
    expect(otherAddress.code).toBe('NOT_HOLDER');

    // The third holder endorses on: a chain of three holders after the signer, every signature valid.
    const fourth = await s.client.endorseDocument(
      ticket,
      endorsement({ name: 'Carla Ruiz', authority: 'EMAIL', data: 'carla@example.com' }, { name: 'Diego Paz', email: 'diego@example.com' }),
    );
    expect((await signWithCode(tokenOf(fourth.signer_url), 'carla@example.com', 'Carla Ruiz')).status).toBe(200);
    const chain2 = await s.client.listEndorsements(ticket);
    expect(chain2.endorsements.map((e) => [e.sequence, e.type, e.status, e.endorsee.name])).toEqual([
      [1, 'propiedad', 'signed', 'Beatriz Gómez'],
      [2, 'garantia', 'declined', 'Carla Ruiz'],
      [3, 'procuracion', 'signed', 'Carla Ruiz'],
      [4, 'propiedad', 'signed', 'Diego Paz'],
    ]);
    expect(chain2.holder?.name).toBe('Diego Paz');

    const final = (await s.client.downloadDocument('original', ticket)).bytes;
    const checked = await pdfsig(final, rootPem);
    expect(checked.signatures.map((x) => [x.commonName, x.valid, x.trusted])).toEqual([
      ['Ana Pérez', true, true],
      ['Ana Pérez', true, true],
      ['Beatriz Gómez', true, true],
      ['Carla Ruiz', true, true],
    ]);
    expect(checked.signatures.at(-1)!.totalDocumentSigned).toBe(true);
    const report = await s.client.signatureReport(ticket);
    expect(report.documentIntegrity).toBe('intact');
  });

  it('makes the universal rendition again from the endorsed original, the endorsement at B-LTA with the signatures before it', async () => {
    const ticket = await completedDocument();
    await jobs.runDue();
    const first = await s.client.downloadDocument('universal', ticket);
    const completedOriginal = createHash('sha256')
      .update((await s.client.downloadDocument('original', ticket)).bytes)
      .digest('hex');
    const created = await s.client.endorseDocument(ticket, endorsement(ANA, BEATRIZ));
    expect((await call('POST', `/sign/api/${tokenOf(created.signer_url)}/sign`, typed('Ana'))).status).toBe(200);
    const owed = await apiError(s.client.downloadDocument('universal', ticket));
    expect([owed.status, owed.code]).toEqual([409, 'NOT_YET_AVAILABLE']);
    // A build of the completed original failing for good after the endorsement (a job that started
    // before it) says nothing of the rendition now owed: not recorded.
    const documentId = (await s.deps.db.selectFrom('documents').select('id').where('ticket', '=', ticket).executeTakeFirstOrThrow()).id;
    await recordUniversalFailure(s.deps, {
      documentId,
      reason: 'stale build failed',
      attempt: 25,
      maxAttempts: 25,
      renewal: false,
      from: { original: completedOriginal },
    });
    const listedOwed = (await s.client.listDocuments()).documents.find((d) => d.document_ticket === ticket)!;
    expect(listedOwed.universal_rendition).toEqual({ status: 'pending' });
    await jobs.runDue();
    const endorsed = (await s.client.downloadDocument('original', ticket)).bytes;
    const second = await s.client.downloadDocument('universal', ticket);
    expect(second.hash).not.toBe(first.hash);
    await expectLta(second.bytes, endorsed, rootPem, 2);
    const report = await s.client.signatureReport(ticket);
    expect(report.documentIntegrity).toBe('intact');
    // universal_signed is announced once per document, not again for the new rendition.
    expect((await eventsOf(ticket)).filter((e) => e.kind === 'universal_signed')).toHaveLength(1);
  });

  it('under NOM-151, stamps the endorsed original and its new universal rendition as well; the listing says so', async () => {
    const doc = await s.client.createDocument({
      b64_doc: pdf,
      nom151: true,
      stickers: [
        { authority: 'EMAIL_LINK', data: 'ana@example.com', name: 'Ana Pérez', page: 0, rect: { lx: 60, ly: 60, tx: 260, ty: 130 } },
      ],
    });
    expect((await call('POST', `/sign/api/${tokenOf(doc.stickers[0].signer_url)}/sign`, typed('Ana'))).status).toBe(200);
    const ticket = doc.document_ticket;
    await jobs.runDue();
    await jobs.runDue();
    expect((await s.client.listStamps(ticket)).stamps.map((x) => x.rendition).sort()).toEqual(['original', 'universal']);

    const created = await s.client.endorseDocument(ticket, endorsement(ANA, BEATRIZ));
    expect((await call('POST', `/sign/api/${tokenOf(created.signer_url)}/sign`, typed('Ana'))).status).toBe(200);
    const listed = async () => (await s.client.listDocuments()).documents.find((d) => d.document_ticket === ticket)!;
    expect((await listed()).nom151_stamps?.original?.status).toBe('pending');
    await jobs.runDue();
    await jobs.runDue();

    const stamps = (await s.client.listStamps(ticket)).stamps;
    expect(stamps.map((x) => x.rendition).sort()).toEqual(['original', 'original', 'universal', 'universal']);
    const endorsed = (await s.client.downloadDocument('original', ticket)).bytes;
    const universal = await s.client.downloadDocument('universal', ticket);
    const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');
    const hashes = stamps.map((x) => x.hash);
    expect(hashes).toContain(sha(endorsed));
    expect(hashes).toContain(universal.hash);
    // Each stamp covers exactly the bytes served for it.
    for (const st of stamps) {
      const covered = await s.client.stampedRevision(ticket, st.hash);
      expect(sha(Buffer.from(covered.pdf, 'base64'))).toBe(st.hash);
    }
    expect((await listed()).nom151_stamps).toEqual({ original: { status: 'ready' }, universal: { status: 'ready' } });
    const kinds = (await eventsOf(ticket)).map((e) => e.kind);
    expect(kinds.filter((k) => k === 'original_nom151_stamped')).toHaveLength(2);
    expect(kinds.filter((k) => k === 'universal_nom151_stamped')).toHaveLength(2);
  });

  it('places the box where asked; refuses what is not completed, another account, bad fields and a box off the page', async () => {
    const ticket = await completedDocument();
    // The other spelling of the path, and a box given by the caller.
    const placed = await s.client.raw('POST', `/api/document/${ticket}/endorsment`, {
      ...endorsement(ANA, BEATRIZ),
      page: 0,
      rect: { lx: 300, ly: 500, tx: 560, ty: 620 },
    });
    expect(placed.status).toBe(200);
    const info = await call('GET', `/sign/api/${tokenOf(JSON.parse(placed.text).signer_url)}`);
    expect(info.json.boxes[0]).toMatchObject({ page: 0, rect: { lx: 300, ly: 500, tx: 560, ty: 620 } });

    const pending = await s.client.createDocument({
      b64_doc: pdf,
      stickers: [{ authority: 'EMAIL_LINK', data: 'ana@example.com', page: 0, rect: { lx: 60, ly: 60, tx: 260, ty: 130 } }],
    });
    const notDone = await apiError(s.client.endorseDocument(pending.document_ticket, endorsement(ANA, BEATRIZ)));
    expect([notDone.status, notDone.code, notDone.details]).toEqual([409, 'DOCUMENT_NOT_COMPLETED', { status: 'pending' }]);

    const other = await s.newAccount('Otra');
    const foreign = await apiError(other.client.endorseDocument(ticket, endorsement(ANA, BEATRIZ)));
    expect([foreign.status, foreign.code]).toEqual([404, 'DOCUMENT_NOT_FOUND']);
    expect((await apiError(other.client.listEndorsements(ticket))).status).toBe(404);

    const second = await completedDocument();
    const cases: [unknown, string][] = [
      [{ ...endorsement(ANA, BEATRIZ), endorsement: { type: 'regalo', text: 'x' } }, 'endorsement.type'],
      [{ ...endorsement(ANA, BEATRIZ), endorsement: { type: 'propiedad', text: ' ' } }, 'endorsement.text'],
      [endorsement({ ...ANA, data: 'not-an-email' }, BEATRIZ), 'endorser.data'],
      [endorsement({ ...ANA, authority: 'FAX' }, BEATRIZ), 'endorser.authority'],
      [endorsement(ANA, { name: 'Beatriz' }), 'endorsee'],
      [endorsement(ANA, { name: 'Beatriz', rfc: 'XYZ' }), 'endorsee.rfc'],
      [{ ...endorsement(ANA, BEATRIZ), page: 7, rect: { lx: 0, ly: 0, tx: 10, ty: 10 } }, 'page'],
      [{ ...endorsement(ANA, BEATRIZ), page: 0, rect: { lx: 0, ly: 0, tx: 900, ty: 10 } }, 'rect'],
      // Over Ana's signature box (60,60)–(260,130) on page 0: it could hide what her box says.
      [{ ...endorsement(ANA, BEATRIZ), page: 0, rect: { lx: 200, ly: 100, tx: 400, ty: 200 } }, 'rect'],
    ];
    for (const [body, field] of cases) {
      const r = await s.client.raw('POST', `/api/document/${second}/endorse`, body);
      expect([r.status, JSON.parse(r.text).error.details?.field], `${JSON.stringify(body)} → ${r.text}`).toEqual([400, field]);
    }
    expect((await s.client.listEndorsements(second)).endorsements).toEqual([]);
  });

  it('takes the endorsement spelled `endorsment`, as the public clients of the original service send it; both spellings at once are 400', async () => {
    const ticket = await completedDocument();
    const given = { type: 'propiedad', text: 'Páguese a la orden de Beatriz Gómez' };
    const rest = { endorser: ANA, endorsee: BEATRIZ };
    // The JavaScript and PHP clients post {endorsment, endorser, endorsee}, to either path.
    const both = await s.client.raw('POST', `/api/document/${ticket}/endorse`, { ...rest, endorsement: given, endorsment: given });
    expect([both.status, JSON.parse(both.text).error]).toEqual([
      400,
      expect.objectContaining({
        code: 'INVALID_INPUT',
        message: expect.stringMatching(/endorsement or endorsment/),
        details: { field: 'endorsement' },
      }),
    ]);
    const badType = await s.client.raw('POST', `/api/document/${ticket}/endorse`, { ...rest, endorsment: { type: 'regalo', text: 'x' } });
    expect([badType.status, JSON.parse(badType.text).error.details]).toEqual([400, { field: 'endorsment.type' }]);
    expect((await s.client.listEndorsements(ticket)).endorsements).toEqual([]);

    const r = await s.client.raw('POST', `/api/document/${ticket}/endorse`, { ...rest, endorsment: given });
    expect(r.status, r.text).toBe(200);
    const chain = await s.client.listEndorsements(ticket);
    expect(chain.endorsements).toEqual([
      expect.objectContaining({
        endorsement_id: JSON.parse(r.text).endorsement_id,
        type: 'propiedad',
        text: given.text,
        status: 'pending',
      }),
    ]);
  });
});
