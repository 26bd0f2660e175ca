// The sender's brand and the embedding mode, through the account API and the CLI's parser: every
// field checked (a colour too light for white text, an origin with a path or plain http to a
// public host, a Reply-To with a line break, a logo that is not a PNG) answers 400 naming it and
// changes nothing; the signer page of an account that lists an origin may be framed by that origin
// alone, when the page's address names it, and every other page stays unframeable.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SelloClient } from '../../src/client/index.js';
import { contrastWithWhite } from '../../src/domain/accounts/account-brand.js';
import { parseAccountCommand } from '../../src/cli/account.js';
import { brandedFrom } from '../../src/notify/sender-address.js';
import { apiError } from '../helpers/api-error.js';
import { A4, makePdf } from '../helpers/pdfs.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { signerToken } from '../helpers/signer-page.js';

let s: TestServer;
let other: SelloClient;
let pdf: string;
const HOST = 'http://127.0.0.1:43117';

beforeAll(async () => {
  s = await startTestServer();
  other = (await s.newAccount('Otra cuenta')).client;
  pdf = (await makePdf([A4])).toString('base64');
});
afterAll(() => s?.close());

const doc = (client: SelloClient) =>
  client.createDocument({
    b64_doc: pdf,
    name: 'Contrato',
    stickers: [{ authority: 'EMAIL_LINK', data: 'ana@example.com', page: 0, rect: { lx: 60, ly: 60, tx: 260, ty: 130 } }],
  });

describe('the brand through the account API', () => {
  it('starts empty, takes valid fields, and answers them back normalised', async () => {
    expect(await s.client.getBrand()).toEqual({
      frame_origins: [],
      brand_name: null,
      brand_colour: null,
      email_sender_name: null,
      email_reply_to: null,
      hide_sello: false,
      logo: null,
    });
    const b = await s.client.updateBrand({
      frame_origins: [HOST, 'https://App.Example.com:8443'],
      brand_name: '  Notaría 12 ',
      brand_colour: '#0B5394',
      email_sender_name: 'Notaría 12, firmas',
      email_reply_to: 'firmas@notaria12.example',
      hide_sello: true,
    });
    expect(b).toMatchObject({
      frame_origins: [HOST, 'https://app.example.com:8443'],
      brand_name: 'Notaría 12',
      brand_colour: '#0b5394',
      email_sender_name: 'Notaría 12, firmas',
      email_reply_to: 'firmas@notaria12.example',
      hide_sello: true,
    });
    // Another account sees its own, untouched.
    expect((await other.getBrand()).frame_origins).toEqual([]);
  });

  it('refuses each bad field with 400 naming it, and changes nothing', async () => {
    const before = await s.client.getBrand();
    const bad: [Record<string, unknown>, string][] = [
      [{ brand_colour: '#ffff00' }, 'brand_colour'], // 1.07:1 against white
      [{ brand_colour: 'blue' }, 'brand_colour'],
      [{ frame_origins: ['https://app.example.com/'] }, 'frame_origins[0]'],
      [{ frame_origins: [HOST, 'https://app.example.com/embed'] }, 'frame_origins[1]'],
      [{ frame_origins: ['http://app.example.com'] }, 'frame_origins[0]'],
      [{ frame_origins: ['*'] }, 'frame_origins[0]'],
      [{ frame_origins: ['https://*.example.com'] }, 'frame_origins[0]'],
      [{ email_reply_to: 'a@example.com\r\nBcc: all@example.com' }, 'email_reply_to'],
      [{ email_sender_name: 'Acme\r\nBcc: x@example.com' }, 'email_sender_name'],
      [{ brand_name: '   ' }, 'brand_name'],
      [{ logo: Buffer.from('GIF89a not a png').toString('base64') }, 'logo'],
      // A good field beside a bad one is not written either.
      [{ brand_name: 'Nuevo nombre', brand_colour: '#eeeeee' }, 'brand_colour'],
    ];
    for (const [body, field] of bad) {
      const err = await apiError(s.client.updateBrand(body as never));
      expect([err.status, err.code], JSON.stringify(body)).toEqual([400, 'INVALID_INPUT']);
      expect((err.details as { field: string }).field, JSON.stringify(body)).toBe(field);
      expect(err.message).toContain(field);
    }
    expect(await s.client.getBrand()).toEqual(before);
  });

  it('the contrast is WCAG 2.x: 4.5:1 passes, just under fails', () => {
    expect(contrastWithWhite('#000000')).toBeCloseTo(21, 5);
    expect(contrastWithWhite('#ffffff')).toBeCloseTo(1, 5);
    expect(contrastWithWhite('#767676')).toBeGreaterThanOrEqual(4.5); // the lightest grey that passes
    expect(contrastWithWhite('#777777')).toBeLessThan(4.5);
  });

  it('null clears a field', async () => {
    const b = await s.client.updateBrand({ brand_name: null, email_reply_to: null });
    expect([b.brand_name, b.email_reply_to, b.brand_colour]).toEqual([null, null, '#0b5394']);
  });
});

describe('the CLI takes the same fields, named as flags', () => {
  it('parses the flags, an empty value clearing one', () => {
    const cmd = parseAccountCommand([
      'update',
      '--web-id',
      'w1',
      '--frame-origins',
      `${HOST}, https://app.example.com`,
      '--brand-colour',
      '#0b5394',
      '--email-reply-to',
      '',
      '--hide-sello',
      'on',
    ]);
    expect(cmd).toMatchObject({
      kind: 'update',
      brand: { frameOrigins: [HOST, 'https://app.example.com'], brandColour: '#0b5394', emailReplyTo: null, hideSello: true },
    });
  });

  it('a bad value names its flag', () => {
    expect(() => parseAccountCommand(['update', '--web-id', 'w1', '--brand-colour', '#ffff00'])).toThrow(/--brand-colour: .*4\.5:1/);
    expect(() => parseAccountCommand(['update', '--web-id', 'w1', '--frame-origins', `${HOST},https://x.example/a`])).toThrow(
      /--frame-origins\[1\]:/,
    );
    expect(() => parseAccountCommand(['update', '--web-id', 'w1', '--hide-sello', 'yes'])).toThrow(/--hide-sello takes on or off/);
  });
});

describe('the From of an account’s emails', () => {
  const account = { name: 'Notaría 12', brand_name: null, email_sender_name: null, hide_sello: false };
  it("keeps the operator's address, with the account's name when it gave one or hides Sello's", () => {
    expect(brandedFrom('Sello <no-reply@sello.test>', account)).toBe('Sello <no-reply@sello.test>');
    expect(brandedFrom('Sello <no-reply@sello.test>', { ...account, email_sender_name: 'Firmas "N12"' })).toBe(
      '"Firmas \\"N12\\"" <no-reply@sello.test>',
    );
    expect(brandedFrom('no-reply@sello.test', { ...account, hide_sello: true })).toBe('"Notaría 12" <no-reply@sello.test>');
    expect(brandedFrom('Sello <no-reply@sello.test>', { ...account, hide_sello: true, brand_name: 'N12' })).toBe(
      '"N12" <no-reply@sello.test>',
    );
  });
});

describe('framing of the signer pages', () => {
  const frameAncestors = (res: Response) => /frame-ancestors ([^;]*)/.exec(res.headers.get('content-security-policy') ?? '')?.[1];

  it('a listed origin named in the address may frame the signer page, and no other', async () => {
    await s.client.updateBrand({ frame_origins: [HOST] });
    const token = signerToken((await doc(s.client)).stickers[0].signer_url);
    const page = (q: string) => fetch(`${s.baseUrl}/sign/${token}${q}`);

    const embedded = await page(`?embed_origin=${encodeURIComponent(HOST)}`);
    expect(embedded.status).toBe(200);
    expect(frameAncestors(embedded)).toBe(HOST);
    expect(embedded.headers.get('x-frame-options')).toBeNull();
    // The rest of the page's policy stays, with one frame-ancestors directive.
    const csp = embedded.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("script-src 'self' 'wasm-unsafe-eval'");
    expect(csp.match(/frame-ancestors/g)).toHaveLength(1);

    for (const q of [
      '',
      '?embed_origin=https%3A%2F%2Fevil.example',
      `?embed_origin=${encodeURIComponent(`${HOST}/`)}`,
      '?embed_origin=*',
    ]) {
      const res = await page(q);
      expect(frameAncestors(res), q).toBe("'none'");
      expect(res.headers.get('x-frame-options'), q).toBe('DENY');
    }
  });

  it("another account's list does not open this account's pages; the panel and document page stay closed", async () => {
    await other.updateBrand({ frame_origins: ['https://other.example'] });
    const token = signerToken((await doc(s.client)).stickers[0].signer_url);
    const res = await fetch(`${s.baseUrl}/sign/${token}?embed_origin=${encodeURIComponent('https://other.example')}`);
    expect(frameAncestors(res)).toBe("'none'");
    const d = await doc(s.client);
    for (const path of [
      `/panel?embed_origin=${encodeURIComponent(HOST)}`,
      `/document/${d.document_ticket}?embed_origin=${encodeURIComponent(HOST)}`,
    ]) {
      const r = await fetch(`${s.baseUrl}${path}`);
      expect(frameAncestors(r), path).toBe("'none'");
      expect(r.headers.get('x-frame-options'), path).toBe('DENY');
    }
  });

  it("a set's page follows its account's list", async () => {
    const set = await s.client.createDocumentSet({ name: 'Alta' });
    await s.client.createDocument({
      b64_doc: pdf,
      name: 'Doc',
      document_set: set.uuid,
      stickers: [{ authority: 'EMAIL_LINK', data: 'ana@example.com', page: 0, rect: { lx: 60, ly: 60, tx: 260, ty: 130 } }],
    });
    const closed = await s.client.closeDocumentSet(set.uuid);
    const url = new URL(closed.signers[0].signer_url);
    expect(url.pathname).toMatch(/^\/sign\/set\//);
    const res = await fetch(`${s.baseUrl}${url.pathname}?embed_origin=${encodeURIComponent(HOST)}`);
    expect(frameAncestors(res)).toBe(HOST);
    expect(res.headers.get('x-frame-options')).toBeNull();
  });
});
