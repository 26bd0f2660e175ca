import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { conclusionMail, invitationMail, otpMail } from '../../src/notify/email-templates.js';
import { MailDeliveryError, createSmtpTransport } from '../../src/notify/email-transport.js';
import { startSmtpCatcher, type SmtpCatcher } from '../helpers/smtp-catcher.js';

let smtp: SmtpCatcher;
beforeAll(async () => {
  smtp = await startSmtpCatcher();
});
afterAll(() => smtp?.close());

describe('email texts', () => {
  it('invite in Spanish by default wording and in English, escaping client values in the HTML', () => {
    const es = invitationMail({
      language: 'es',
      signerName: 'Ana <b>',
      documentName: 'Contrato',
      signUrl: 'https://s.example/sign/t',
      senderName: 'Acme',
    });
    expect(es.subject).toBe('Firma solicitada: Contrato');
    expect(es.text).toContain('Acme le pide firmar «Contrato».');
    expect(es.text).toContain('https://s.example/sign/t');
    expect(es.html).toContain('Hola Ana &lt;b&gt;,');
    expect(es.html).not.toContain('<b>');
    const en = invitationMail({
      language: 'en',
      signerName: null,
      documentName: 'NDA',
      signUrl: 'https://x/y',
      senderName: 'Acme',
      subject: 'Please sign',
      documentCount: 3,
    });
    expect(en.subject).toBe('Please sign');
    expect(en.text).toContain('Acme asks you to sign 3 documents, including “NDA”.');
    expect(invitationMail({ language: 'en', signerName: null, documentName: 'NDA', signUrl: 'u', senderName: 'A' }, true).subject).toBe(
      'Reminder: your signature on NDA is pending',
    );
  });
  it('conclusion says whether the PDF is attached or linked; OTP names the code and its lifetime', () => {
    expect(conclusionMail({ language: 'es', documentName: 'X', attached: true }).text).toContain('adjunto');
    expect(conclusionMail({ language: 'en', documentName: 'X', attached: false, downloadUrls: ['https://d/x'] }).text).toContain(
      'https://d/x',
    );
    expect(otpMail({ language: 'en', code: '482913', minutes: 10 }).text).toContain('482913');
  });
});

describe('SMTP transport', () => {
  it('delivers text, HTML and attachments to a real SMTP server', async () => {
    const t = createSmtpTransport(smtp.url);
    const m = invitationMail({
      language: 'es',
      signerName: 'Ana',
      documentName: 'Contrato',
      signUrl: 'https://s/sign/t',
      senderName: 'Acme',
    });
    const sent = await t.send('Sello <no-reply@sello.test>', {
      to: 'ana@example.com',
      ...m,
      attachments: [{ filename: 'c.pdf', content: Buffer.from('%PDF-1.7 x'), contentType: 'application/pdf' }],
    });
    t.close();
    expect(sent.response).toMatch(/^250/);
    const got = smtp.messages.at(-1)!;
    expect(got.to).toEqual(['ana@example.com']);
    expect(got.subject).toBe('Firma solicitada: Contrato');
    expect(got.html).toContain('https://s/sign/t');
    expect(got.attachments[0]).toMatchObject({ filename: 'c.pdf', mimeType: 'application/pdf' });
    expect(got.attachments[0].content.toString()).toBe('%PDF-1.7 x');
  });
  it('reports a refused recipient as a permanent failure with the server reply', async () => {
    smtp.refuse.add('gone@example.com');
    const t = createSmtpTransport(smtp.url);
    const err = await t
      .send('no-reply@sello.test', { to: 'gone@example.com', subject: 's', text: 't', html: '<p>t</p>' })
      .catch((e: unknown) => e);
    t.close();
    expect(err).toBeInstanceOf(MailDeliveryError);
    expect((err as MailDeliveryError).responseCode).toBe(550);
    expect((err as MailDeliveryError).permanent).toBe(true);
    expect((err as MailDeliveryError).reply).toMatch(/550/);
  });
  it('reports an unreachable server as a temporary failure', async () => {
    const t = createSmtpTransport('smtp://127.0.0.1:1', { timeoutMs: 2000 });
    const err = await t.send('a@b.c', { to: 'x@example.com', subject: 's', text: 't', html: 't' }).catch((e: unknown) => e);
    t.close();
    expect((err as MailDeliveryError).permanent).toBe(false);
    expect((err as MailDeliveryError).responseCode).toBeUndefined();
  });
});
