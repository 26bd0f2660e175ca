// The account panel from a test: invite a person (as `sello panel invite` does), read the sign-in
// link from the outbox, sign in, and call /panel/api with the session cookie and CSRF token.
import { expect } from 'vitest';
import { invitePanelUser } from '../../src/domain/panel/invite-panel-user.js';
import { listMessages } from '../../src/store/mail-repo.js';
import type { TestServer } from './server.js';

/** The token of the newest sign-in link emailed to `email`. */
export async function signInTokenFor(s: TestServer, email: string): Promise<string> {
  const mail = (await listMessages(s.deps, 200)).find((m) => m.kind === 'panel_sign_in' && m.recipient === email);
  expect(mail, `a sign-in email to ${email}`).toBeDefined();
  return /\/panel\/sign-in#token=([A-Za-z0-9_-]{43})/.exec(mail!.body_text)![1];
}

export interface PanelSessionForTest {
  cookie: string;
  csrf: string;
  /** A request to the panel API with the session's cookie; `csrf: false` leaves the token out. */
  call(method: string, path: string, o?: { body?: unknown; csrf?: string | false }): Promise<Response>;
}

export async function panelCall(
  s: TestServer,
  method: string,
  path: string,
  o: { cookie?: string; csrf?: string; body?: unknown } = {},
): Promise<Response> {
  const headers: Record<string, string> = {};
  if (o.cookie) {
    headers.cookie = o.cookie;
  }
  if (o.csrf) {
    headers['x-csrf-token'] = o.csrf;
  }
  if (method !== 'GET') {
    headers['content-type'] = 'application/json';
  }
  return fetch(`${s.baseUrl}${path}`, { method, headers, body: method === 'GET' ? undefined : JSON.stringify(o.body ?? {}) });
}

/** Signs in with a link's token; the cookie as a browser would send it back. */
export async function signInWithToken(s: TestServer, token: string): Promise<{ res: Response; cookie?: string }> {
  const res = await panelCall(s, 'POST', '/panel/api/sign-in', { body: { token } });
  const set = res.headers.get('set-cookie');
  return { res, cookie: set ? set.split(';')[0] : undefined };
}

/** Invites `email` to the account and signs in through the emailed link. */
export async function panelSession(s: TestServer, webId: string, email: string): Promise<PanelSessionForTest> {
  await invitePanelUser(s.deps, { webId, email });
  const { res, cookie } = await signInWithToken(s, await signInTokenFor(s, email));
  expect(res.status).toBe(200);
  const me = await (await panelCall(s, 'GET', '/panel/api/session', { cookie })).json();
  const csrf = me.csrf_token as string;
  return {
    cookie: cookie!,
    csrf,
    call: (method, path, o = {}) =>
      panelCall(s, method, path, { cookie, csrf: o.csrf === false ? undefined : (o.csrf ?? csrf), body: o.body }),
  };
}
