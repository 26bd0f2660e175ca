// A message provider on loopback that speaks the two HTTP APIs Sello calls: Twilio's Messages API
// (POST /2010-04-01/Accounts/{sid}/Messages.json, form-encoded, HTTP basic auth) and Meta's
// WhatsApp Cloud API (POST /{version}/{phone number id}/messages, JSON, bearer token). It keeps every
// message it accepts, can refuse a number for good (Twilio 21211, Meta 131026) or for a while (503),
// and posts status callbacks signed as each provider signs them.
import { createHmac, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { twilioSignature } from '../../src/notify/twilio.js';

export const TWILIO = { sid: 'AC0123456789abcdef0123456789abcdef', token: 'twilio-auth-token-for-tests', from: '+15005550006' };
export const META = { token: 'meta-access-token', phoneId: '102290129340398', secret: 'meta-app-secret', verify: 'meta-verify-token' };

export interface SimulatedMessage {
  provider: 'twilio' | 'meta';
  channel: 'sms' | 'whatsapp';
  /** E.164, as the signer's data. */
  to: string;
  /** Twilio: Body. Meta: the template's body parameters joined by a space. */
  text: string;
  template?: string;
  language?: string;
  params: string[];
  providerId: string;
  /** Twilio: the StatusCallback URL. Meta: biz_opaque_callback_data (Sello's message id). */
  callback: string;
}

export interface ChannelSimulator {
  url: string;
  messages: SimulatedMessage[];
  /** Numbers refused for good. */
  refuse: Set<string>;
  /** Numbers answered 503 this many more times. */
  unavailable: Map<string, number>;
  /** Requests refused for bad credentials. */
  unauthorized: number;
  /** The env that points Sello at this simulator. */
  env(): Record<string, string>;
  close(): Promise<void>;
}

async function bodyOf(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of req) {
    chunks.push(c as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

export async function startChannelSimulator(): Promise<ChannelSimulator> {
  const sim: Omit<ChannelSimulator, 'url' | 'env' | 'close'> = { messages: [], refuse: new Set(), unavailable: new Map(), unauthorized: 0 };
  const outage = (to: string) => {
    const n = sim.unavailable.get(to) ?? 0;
    if (n > 0) {
      sim.unavailable.set(to, n - 1);
      return true;
    }
    return false;
  };
  const server = createServer(async (req, res) => {
    const body = await bodyOf(req);
    const send = (status: number, json: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(json));
    };
    const twilio = /^\/2010-04-01\/Accounts\/([^/]+)\/Messages\.json$/.exec(req.url ?? '');
    if (req.method === 'POST' && twilio) {
      if (
        req.headers.authorization !== `Basic ${Buffer.from(`${TWILIO.sid}:${TWILIO.token}`).toString('base64')}` ||
        twilio[1] !== TWILIO.sid
      ) {
        sim.unauthorized++;
        return send(401, { code: 20003, message: 'Authenticate', status: 401 });
      }
      const p = Object.fromEntries(new URLSearchParams(body));
      const whatsapp = p.To.startsWith('whatsapp:');
      const to = p.To.replace(/^whatsapp:/, '');
      if (sim.refuse.has(to)) {
        return send(400, { code: 21211, message: `The 'To' number ${to} is not a valid phone number.`, status: 400 });
      }
      if (outage(to)) {
        return send(503, { code: 20500, message: 'Service unavailable', status: 503 });
      }
      const sid = `SM${randomBytes(16).toString('hex')}`;
      sim.messages.push({
        provider: 'twilio',
        channel: whatsapp ? 'whatsapp' : 'sms',
        to,
        text: p.Body ?? '',
        params: p.ContentVariables ? Object.values(JSON.parse(p.ContentVariables) as Record<string, string>) : [],
        template: p.ContentSid,
        providerId: sid,
        callback: p.StatusCallback,
      });
      return send(201, { sid, status: 'queued', to: p.To, from: p.From ?? null, body: p.Body ?? null });
    }
    const meta = /^\/(v\d+\.\d+)\/([^/]+)\/messages$/.exec(req.url ?? '');
    if (req.method === 'POST' && meta) {
      if (req.headers.authorization !== `Bearer ${META.token}` || meta[2] !== META.phoneId) {
        sim.unauthorized++;
        return send(401, { error: { message: 'Invalid OAuth access token', type: 'OAuthException', code: 190 } });
      }
      const m = JSON.parse(body) as {
        to: string;
        template: { name: string; language: { code: string }; components: { type: string; parameters: { text: string }[] }[] };
        biz_opaque_callback_data: string;
      };
      const to = `+${m.to}`;
      if (sim.refuse.has(to)) {
        return send(400, { error: { message: '(#131026) Message undeliverable', type: 'OAuthException', code: 131026 } });
      }
      if (outage(to)) {
        return send(503, { error: { message: 'Service temporarily unavailable', code: 2 } });
      }
      const params = m.template.components.find((c) => c.type === 'body')?.parameters.map((x) => x.text) ?? [];
      const id = `wamid.${randomBytes(12).toString('hex')}`;
      sim.messages.push({
        provider: 'meta',
        channel: 'whatsapp',
        to,
        text: params.join(' '),
        template: m.template.name,
        language: m.template.language.code,
        params,
        providerId: id,
        callback: m.biz_opaque_callback_data,
      });
      return send(200, { messaging_product: 'whatsapp', contacts: [{ input: m.to, wa_id: m.to }], messages: [{ id }] });
    }
    send(404, { error: 'not simulated' });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return Object.assign(sim, {
    url,
    env: () => ({
      SELLO_TWILIO_ACCOUNT_SID: TWILIO.sid,
      SELLO_TWILIO_AUTH_TOKEN: TWILIO.token,
      SELLO_TWILIO_SMS_FROM: TWILIO.from,
      SELLO_TWILIO_BASE_URL: url,
      SELLO_META_ACCESS_TOKEN: META.token,
      SELLO_META_PHONE_NUMBER_ID: META.phoneId,
      SELLO_META_APP_SECRET: META.secret,
      SELLO_META_VERIFY_TOKEN: META.verify,
      SELLO_META_BASE_URL: url,
    }),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  });
}

/** Posts Twilio's status callback of a message to its StatusCallback URL, signed (or forged). */
export async function postTwilioStatus(
  m: SimulatedMessage,
  status: { MessageStatus: string; ErrorCode?: string },
  o: { token?: string; unsigned?: boolean } = {},
): Promise<Response> {
  const params: Record<string, string> = {
    MessageSid: m.providerId,
    SmsSid: m.providerId,
    AccountSid: TWILIO.sid,
    To: m.channel === 'whatsapp' ? `whatsapp:${m.to}` : m.to,
    From: TWILIO.from,
    ApiVersion: '2010-04-01',
    ...status,
  };
  const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded' };
  if (!o.unsigned) {
    headers['x-twilio-signature'] = twilioSignature(o.token ?? TWILIO.token, m.callback, params);
  }
  return fetch(m.callback, { method: 'POST', headers, body: new URLSearchParams(params).toString() });
}

/** Posts Meta's webhook with one status of a message, signed with the app secret (or forged). */
export async function postMetaStatus(
  baseUrl: string,
  m: SimulatedMessage,
  status: { status: string; errors?: { code: number; title: string }[] },
  o: { secret?: string; unsigned?: boolean } = {},
): Promise<Response> {
  const body = JSON.stringify({
    object: 'whatsapp_business_account',
    entry: [
      {
        id: '1',
        changes: [
          {
            field: 'messages',
            value: {
              messaging_product: 'whatsapp',
              metadata: { phone_number_id: META.phoneId },
              statuses: [
                {
                  id: m.providerId,
                  recipient_id: m.to.slice(1),
                  timestamp: String(Math.floor(Date.now() / 1000)),
                  biz_opaque_callback_data: m.callback,
                  ...status,
                },
              ],
            },
          },
        ],
      },
    ],
  });
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (!o.unsigned) {
    headers['x-hub-signature-256'] = `sha256=${createHmac('sha256', o.secret ?? META.secret)
      .update(body)
      .digest('hex')}`;
  }
  return fetch(`${baseUrl}/channels/meta/webhook`, { method: 'POST', headers, body });
}
