// The account panel's sign-in and sessions: the invitation's one-time link (single use, 15 minutes,
// by the injected clock), the session cookie's attributes, idle and absolute expiry, sign-out and
// the operator's "end sessions", the CSRF token on every change, and the sign-in page's "send me a
// link" that never tells whether an address is known and is rate-limited per address and per IP.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parsePanelCommand, runPanelCommand } from '../../src/cli/panel.js';
import { invitePanelUser } from '../../src/domain/panel/invite-panel-user.js';
import { LINK_REQUEST_FLOOR_MS } from '../../src/domain/panel/panel-settings.js';
import { listMessages } from '../../src/store/mail-repo.js';
import { movableClock, type MovableClock } from '../helpers/flow-clock.js';
import { panelCall, panelSession, signInTokenFor, signInWithToken } from '../helpers/panel.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

const MINUTE = 60_000;
let s: TestServer;
let clock: MovableClock;
/**
 * Each answer held for a floor: its path, the floor, and whether it had been sent already. The
 * floor is recorded, not waited for (the wait itself: test/unit/answer-floor.test.ts; the times
 * that come out: `npm run bench`).
 */
const floors: { url: string; floorMs: number; sent: boolean }[] = [];
beforeAll(async () => {
  clock = movableClock();
  s = await startTestServer({
    clock,
    answerFloor: async (reply, floorMs) => {
      floors.push({ url: reply.request.url, floorMs, sent: reply.sent });
    },
  });
});
afterAll(() => s?.close());

async function errorOf(res: Response) {
  return { status: res.status, code: ((await res.json()) as { error: { code: string } }).error.code };
}

/** Moves the clock past the link-request window, so each test starts with fresh limits. */
const nextWindow = () => clock.advance(16 * MINUTE);

describe('panel sign-in', () => {
  it('sello panel invite emails a link that signs in once; the cookie is HttpOnly, SameSite=Strict, Path=/panel', async () => {
    const logged: string[] = [];
    const log = console.log;
    console.log = (line: string) => logged.push(line);
    try {
      await runPanelCommand(s.deps, parsePanelCommand(['invite', '--web-id', s.creds.webId, '--email', 'Ana@Example.com']));
    } finally {
      console.log = log;
    }
    expect(logged.join('\n')).toContain('ana@example.com may sign in to the panel');
    const mail = (await listMessages(s.deps, 10)).find((m) => m.kind === 'panel_sign_in')!;
    expect(mail).toMatchObject({ recipient: 'ana@example.com', account_id: expect.any(String), status: 'queued' });
    expect(mail.body_text).toContain(`${s.baseUrl}/panel/sign-in#token=`);
    const token = await signInTokenFor(s, 'ana@example.com');

    const first = await signInWithToken(s, token);
    expect(first.res.status).toBe(200);
    const attrs = first.res.headers.get('set-cookie')!.split('; ');
    expect(attrs[0]).toMatch(/^sello_panel=[A-Za-z0-9_-]{43}$/);
    expect(attrs.slice(1).sort()).toEqual(['HttpOnly', 'Max-Age=43200', 'Path=/panel', 'SameSite=Strict']);

    const me = await panelCall(s, 'GET', '/panel/api/session', { cookie: first.cookie });
    expect(me.status).toBe(200);
    expect(me.headers.get('cache-control')).toBe('no-store');
    const body = await me.json();
    expect(body).toMatchObject({ email: 'ana@example.com', account: { web_id: s.creds.webId, name: 'Test account' } });
    expect(body.csrf_token).toMatch(/^[A-Za-z0-9_-]{43}$/);

    // The same link again: refused, and no second session.
    const again = await signInWithToken(s, token);
    expect(await errorOf(again.res)).toEqual({ status: 401, code: 'SIGN_IN_LINK_INVALID' });
    expect(again.cookie).toBeUndefined();
  });

  it('a link works within 15 minutes of being sent, not after', async () => {
    await invitePanelUser(s.deps, { webId: s.creds.webId, email: 'late@example.com' });
    const late = await signInTokenFor(s, 'late@example.com');
    clock.advance(15 * MINUTE + 1);
    expect(await errorOf((await signInWithToken(s, late)).res)).toEqual({ status: 401, code: 'SIGN_IN_LINK_INVALID' });

    await invitePanelUser(s.deps, { webId: s.creds.webId, email: 'late@example.com' });
    const onTime = await signInTokenFor(s, 'late@example.com');
    clock.advance(14 * MINUTE);
    expect((await signInWithToken(s, onTime)).res.status).toBe(200);
  });

  it('a made-up or malformed token is refused the same way', async () => {
    for (const token of ['A'.repeat(43), 'short', '']) {
      expect(await errorOf((await signInWithToken(s, token)).res)).toEqual({ status: 401, code: 'SIGN_IN_LINK_INVALID' });
    }
  });

  it('is Secure when the public URL is https', async () => {
    const config = s.deps.config as { publicUrl: string };
    const before = config.publicUrl;
    config.publicUrl = 'https://sign.sello.test';
    try {
      await invitePanelUser(s.deps, { webId: s.creds.webId, email: 'secure@example.com' });
      const mail = (await listMessages(s.deps, 5)).find((m) => m.recipient === 'secure@example.com')!;
      expect(mail.body_text).toContain('https://sign.sello.test/panel/sign-in#token=');
      const { res } = await signInWithToken(s, await signInTokenFor(s, 'secure@example.com'));
      expect(res.headers.get('set-cookie')!.split('; ')).toContain('Secure');
    } finally {
      config.publicUrl = before;
    }
  });
});

describe('panel sessions', () => {
  it('without a session every panel endpoint is 401 with a JSON error', async () => {
    const endpoints = [
      ['GET', '/panel/api/session'],
      ['POST', '/panel/api/sign-out'],
      ['GET', '/panel/api/documents'],
      ['GET', '/panel/api/documents/x'],
      ['GET', '/panel/api/documents/x/files/original'],
      ['GET', '/panel/api/documents/x/report'],
      ['GET', '/panel/api/documents/x/history.pdf'],
      ['GET', '/panel/api/documents/x/stamps'],
      ['GET', `/panel/api/documents/x/stamps/${'a'.repeat(64)}/pdf`],
      ['GET', '/panel/api/webhook'],
      ['POST', '/panel/api/webhook'],
      ['POST', '/panel/api/webhook/secret'],
      ['POST', '/panel/api/webhook/test'],
      ['GET', '/panel/api/webhook/deliveries'],
      ['POST', '/panel/api/webhook/deliveries/1/retry'],
      ['GET', '/panel/api/webhook/subscriptions'],
      ['POST', '/panel/api/webhook/subscriptions'],
      ['DELETE', '/panel/api/webhook/subscriptions/1'],
      ['GET', '/panel/api/keys'],
      ['POST', '/panel/api/keys'],
      ['POST', '/panel/api/keys/1/rotate'],
      ['POST', '/panel/api/keys/1/revoke'],
      ['GET', '/panel/api/usage'],
    ];
    for (const [method, path] of endpoints) {
      for (const cookie of [undefined, `sello_panel=${'A'.repeat(43)}`, 'sello_panel=garbage']) {
        const res = await panelCall(s, method, path, { cookie, csrf: 'x' });
        expect({ path, cookie, ...(await errorOf(res)) }).toEqual({ path, cookie, status: 401, code: 'PANEL_SESSION_REQUIRED' });
      }
    }
  });

  it('ends after 30 minutes idle; activity keeps it alive until 12 hours after sign-in', async () => {
    const idle = await panelSession(s, s.creds.webId, 'idle@example.com');
    clock.advance(29 * MINUTE);
    expect((await idle.call('GET', '/panel/api/session')).status).toBe(200);
    clock.advance(30 * MINUTE + 1);
    expect(await errorOf(await idle.call('GET', '/panel/api/session'))).toEqual({ status: 401, code: 'PANEL_SESSION_REQUIRED' });

    const busy = await panelSession(s, s.creds.webId, 'busy@example.com');
    for (let elapsed = 0; elapsed < 12 * 60 - 20; elapsed += 20) {
      clock.advance(20 * MINUTE);
      expect((await busy.call('GET', '/panel/api/session')).status, `after ${elapsed + 20} min`).toBe(200);
    }
    clock.advance(20 * MINUTE);
    expect(await errorOf(await busy.call('GET', '/panel/api/session'))).toEqual({ status: 401, code: 'PANEL_SESSION_REQUIRED' });
  });

  it('sign out ends the session and clears the cookie; the operator can end every session of a person', async () => {
    const one = await panelSession(s, s.creds.webId, 'out@example.com');
    const out = await one.call('POST', '/panel/api/sign-out');
    expect(out.status).toBe(204);
    expect(out.headers.get('set-cookie')).toMatch(/^sello_panel=; Path=\/panel; Max-Age=0; HttpOnly; SameSite=Strict/);
    expect((await one.call('GET', '/panel/api/session')).status).toBe(401);

    const a = await panelSession(s, s.creds.webId, 'twice@example.com');
    const b = await panelSession(s, s.creds.webId, 'twice@example.com');
    const keep = await panelSession(s, s.creds.webId, 'other@example.com');
    const logged: string[] = [];
    const log = console.log;
    console.log = (line: string) => logged.push(line);
    try {
      await runPanelCommand(s.deps, parsePanelCommand(['sessions', 'end', '--email', 'twice@example.com', '--json']));
    } finally {
      console.log = log;
    }
    expect(JSON.parse(logged[0])).toEqual({ email: 'twice@example.com', ended: 2 });
    expect((await a.call('GET', '/panel/api/session')).status).toBe(401);
    expect((await b.call('GET', '/panel/api/session')).status).toBe(401);
    expect((await keep.call('GET', '/panel/api/session')).status).toBe(200);
  });

  it('a change without the CSRF token, or with a wrong one, is 403 and changes nothing', async () => {
    const p = await panelSession(s, s.creds.webId, 'csrf@example.com');
    const keys = async () => ((await (await p.call('GET', '/panel/api/keys')).json()) as { keys: unknown[] }).keys.length;
    const before = await keys();
    const wrong = `${p.csrf.slice(0, -1)}${p.csrf.endsWith('A') ? 'B' : 'A'}`;
    for (const csrf of [false, wrong, 'short', `${p.csrf}x`] as const) {
      for (const path of ['/panel/api/keys', '/panel/api/webhook/secret', '/panel/api/sign-out']) {
        expect({ path, ...(await errorOf(await p.call('POST', path, { csrf }))) }).toEqual({
          path,
          status: 403,
          code: 'CSRF_TOKEN_INVALID',
        });
      }
    }
    expect(await keys()).toBe(before);
    // Another session's token is not this one's.
    const other = await panelSession(s, s.creds.webId, 'csrf2@example.com');
    expect((await p.call('POST', '/panel/api/keys', { csrf: other.csrf })).status).toBe(403);
    expect(await keys()).toBe(before);
    expect((await p.call('POST', '/panel/api/keys')).status).toBe(201);
    expect(await keys()).toBe(before + 1);
  });
});

describe('asking for a sign-in link', () => {
  const ask = (email: string, ip?: string) =>
    fetch(`${s.baseUrl}/panel/api/sign-in/request`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(ip ? { 'x-forwarded-for': ip } : {}) },
      body: JSON.stringify({ email, language: 'en' }),
    });

  it('answers the same for a known and an unknown address; only the known one gets an email', async () => {
    nextWindow();
    await invitePanelUser(s.deps, { webId: s.creds.webId, email: 'known@example.com' });
    const sentBefore = (await listMessages(s.deps, 500)).length;
    floors.length = 0;
    const known = await ask('KNOWN@example.com');
    const unknown = await ask('nobody@example.com');
    // Both are held for the same floor, well above what sending a link costs, before they leave.
    const floor = { url: '/panel/api/sign-in/request', floorMs: LINK_REQUEST_FLOOR_MS, sent: false };
    expect(floors).toEqual([floor, floor]);
    expect([known.status, await known.text()]).toEqual([202, '{"sent":true}']);
    expect([unknown.status, await unknown.text()]).toEqual([202, '{"sent":true}']);
    const mails = (await listMessages(s.deps, 500)).slice(0, (await listMessages(s.deps, 500)).length - sentBefore);
    expect(mails.map((m) => [m.recipient, m.kind])).toEqual([['known@example.com', 'panel_sign_in']]);
    expect(mails[0].subject).toBe('Sign in to the Test account panel');
    // The new link signs in.
    expect((await signInWithToken(s, await signInTokenFor(s, 'known@example.com'))).res.status).toBe(200);
  });

  it('a bad address is a 400 naming the field', async () => {
    const res = await ask('not-an-address');
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: { message: string } }).error.message).toMatch(/^email:/);
  });

  it('is limited to 3 requests per address and 10 per client address in 15 minutes', async () => {
    nextWindow();
    for (let i = 0; i < 3; i++) {
      expect((await ask('flood@example.com')).status).toBe(202);
    }
    const over = await ask('flood@example.com');
    expect(over.status).toBe(429);
    expect(Number(over.headers.get('retry-after'))).toBeGreaterThan(0);

    nextWindow();
    for (let i = 0; i < 10; i++) {
      expect((await ask(`walk${i}@example.com`)).status).toBe(202);
    }
    expect((await ask('walk10@example.com')).status).toBe(429);
    nextWindow();
    expect((await ask('walk10@example.com')).status).toBe(202);
  });
});
