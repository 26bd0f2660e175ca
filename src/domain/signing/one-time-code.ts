// The EMAIL, SMS and WHATSAPP authorities: the signer proves their address or phone with a six-digit
// code sent to it, by email, SMS or WhatsApp, under the same rules.
//   POST /sign/api/{token}/otp          sends a code (valid 10 minutes; a new one at most each minute)
//   POST /sign/api/{token}/otp/verify   {code}; five wrong attempts use a code up
// Only an HMAC of the code is stored (keyed by the signer, so equal codes differ in the table),
// and the comparison is constant-time.
import { createHmac, randomInt, timingSafeEqual } from 'node:crypto';
import { AppError } from '../errors.js';
import type { Deps } from '../deps.js';
import { appendHistory } from '../history/append-history.js';
import { queueEmail } from '../mail/queue-email.js';
import { phoneChannelOf, queueMessage } from '../messages/queue-message.js';
import { otpMail } from '../../notify/email-templates.js';
import { otpText } from '../../notify/message-templates.js';
import { maskPhone } from './get-document-page.js';
import { countOtpAttempt, markVerified, otpStateOf, storeOtp } from '../../store/signing-repo.js';
import { openSession, requireSignable, type SigningSession } from './signing-session.js';
import type { CodeBody, CodeSent, CodeVerified } from '../../schemas/signing.js';
import { languageOf } from './workflow-language.js';

export const OTP_MINUTES = 10;
const RESEND_SECONDS = 60;
const MAX_ATTEMPTS = 5;
/** How long a verified code keeps a signer proven. */
export const VERIFIED_MINUTES = 60;

function codeHash(signerId: string, code: string): Buffer {
  return createHmac('sha256', signerId).update(code).digest();
}

/** The authorities proven by a one-time code, and the channel each code goes by. */
const CODE_CHANNELS: Record<string, 'email' | 'sms' | 'whatsapp'> = { EMAIL: 'email', SMS: 'sms', WHATSAPP: 'whatsapp' };

/** How the signing API names an authority's proof (`signer.proof`). */
export function proofOf(authority: string): 'link' | 'email_code' | 'sms_code' | 'whatsapp_code' | 'not_available' {
  const channel = CODE_CHANNELS[authority];
  return authority === 'EMAIL_LINK' ? 'link' : channel ? `${channel}_code` : 'not_available';
}

/** Whether the authority's signers prove themselves with a one-time code. */
export function provenByCode(authority: string): boolean {
  return authority in CODE_CHANNELS;
}

function requireCodeAuthority(s: SigningSession): 'email' | 'sms' | 'whatsapp' {
  const channel = CODE_CHANNELS[s.signer.authority];
  if (!channel) {
    throw new AppError(
      'INVALID_STATE',
      `one-time codes are for the EMAIL, SMS and WHATSAPP authorities; this signer's is ${s.signer.authority}`,
    );
  }
  return channel;
}

/** Where the code went, masked: the answer and the history never carry the whole address or phone. */
function maskedRecipient(channel: 'email' | 'sms' | 'whatsapp', data: string): string {
  return channel === 'email' ? maskEmail(data) : maskPhone(data);
}

export async function sendOneTimeCode(deps: Deps, token: string, ip?: string): Promise<CodeSent> {
  return deps.db.transaction().execute(async (trx) => {
    const s = await openSession(trx, token, true);
    requireSignable(s);
    const channel = requireCodeAuthority(s);
    const now = deps.clock.now();
    const state = await otpStateOf(trx, s.signer.id);
    if (state.otp_sent_at && now.getTime() - new Date(state.otp_sent_at).getTime() < RESEND_SECONDS * 1000) {
      throw new AppError('RATE_LIMITED', `a code was sent less than ${RESEND_SECONDS} seconds ago; wait before asking for another`);
    }
    const code = String(randomInt(0, 1_000_000)).padStart(6, '0');
    const expiresAt = new Date(now.getTime() + OTP_MINUTES * 60_000);
    const language = languageOf(s.document.workflow, deps.config.defaultLanguage);
    await storeOtp(trx, s.signer.id, { hash: codeHash(s.signer.signer_id, code), expiresAt, sentAt: now });
    const phone = phoneChannelOf(s.signer.authority);
    if (phone) {
      // No messages piece left: 402 and nothing done (the previous code stays valid), since the
      // signer is waiting for this code and nothing else can be done for them (queue-message.ts).
      await queueMessage(trx, deps, {
        accountId: s.document.account_id,
        documentId: s.document.id,
        signerId: s.signer.signer_id,
        channel: phone,
        kind: 'otp',
        language,
        to: s.signer.data,
        rendered: otpText({ language, code, minutes: OTP_MINUTES }),
        onExhausted: 'refuse',
      });
    } else {
      await queueEmail(trx, deps, {
        accountId: s.document.account_id,
        documentId: s.document.id,
        kind: 'otp',
        to: s.signer.data,
        mail: otpMail({ language, code, minutes: OTP_MINUTES }),
      });
    }
    const to = maskedRecipient(channel, s.signer.data);
    await appendHistory(trx, {
      documentId: s.document.id,
      at: now,
      action: 'otp_sent',
      actor: `signer:${s.signer.signer_id}`,
      ip: ip ?? null,
      details: { channel, to, expires_at: expiresAt.toISOString() },
    });
    return { status: 'sent' as const, to, expires_at: expiresAt.toISOString() };
  });
}

export async function verifyOneTimeCode(deps: Deps, token: string, body: CodeBody, ip?: string): Promise<CodeVerified> {
  // The schema's pattern allows the spaces a pasted code carries; they are not part of it.
  const code = body.code.trim();
  return deps.db
    .transaction()
    .execute(async (trx) => {
      const s = await openSession(trx, token, true);
      requireSignable(s);
      requireCodeAuthority(s);
      const now = deps.clock.now();
      const state = await otpStateOf(trx, s.signer.id);
      if (!state.otp_hash || !state.otp_expires_at || new Date(state.otp_expires_at) <= now || state.otp_attempts >= MAX_ATTEMPTS) {
        throw new AppError('OTP_EXPIRED', 'this code is no longer valid; ask for a new one');
      }
      if (!timingSafeEqual(codeHash(s.signer.signer_id, code), state.otp_hash)) {
        await countOtpAttempt(trx, s.signer.id);
        const left = MAX_ATTEMPTS - state.otp_attempts - 1;
        // The attempt must count even though the request fails: commit it, then answer.
        return { failed: true as const, left };
      }
      await markVerified(trx, s.signer.id, now);
      await appendHistory(trx, {
        documentId: s.document.id,
        at: now,
        action: 'otp_verified',
        actor: `signer:${s.signer.signer_id}`,
        ip: ip ?? null,
      });
      return { status: 'verified' as const, verified_at: now.toISOString() };
    })
    .then((r) => {
      if ('failed' in r) {
        throw new AppError('OTP_INVALID', `wrong code; ${r.left} attempt(s) left`, { attempts_left: r.left });
      }
      return r;
    });
}

/** EMAIL, SMS and WHATSAPP signers: proven by a code verified recently. EMAIL_LINK: the link is the proof. */
export async function requireProof(deps: Pick<Deps, 'clock'>, q: Parameters<typeof otpStateOf>[0], s: SigningSession) {
  if (s.signer.authority === 'EMAIL_LINK') {
    return;
  }
  if (!provenByCode(s.signer.authority)) {
    throw new AppError('AUTHORITY_NOT_AVAILABLE', `signing with authority ${s.signer.authority} is not available on this server yet`, {
      authority: s.signer.authority,
    });
  }
  if (!(await isProven(deps, s, q))) {
    throw new AppError(
      'VERIFICATION_REQUIRED',
      `enter the code sent ${SENT_BY[s.signer.authority]} first (POST .../otp, then .../otp/verify)`,
    );
  }
}

/** How a VERIFICATION_REQUIRED message names where the code went. */
export const SENT_BY: Record<string, string> = {
  EMAIL: 'to your email address',
  SMS: 'by SMS to your phone',
  WHATSAPP: 'by WhatsApp to your phone',
};

/** Whether a signer proven by code verified a code within VERIFIED_MINUTES. */
export async function isProven(
  deps: Pick<Deps, 'clock' | 'db'> | Pick<Deps, 'clock'>,
  s: SigningSession,
  q?: Parameters<typeof otpStateOf>[0],
) {
  const db = q ?? (deps as Pick<Deps, 'db'>).db;
  const state = await otpStateOf(db, s.signer.id);
  return Boolean(state.verified_at && deps.clock.now().getTime() - new Date(state.verified_at).getTime() < VERIFIED_MINUTES * 60_000);
}

function maskEmail(email: string): string {
  const [user, domain] = email.split('@');
  return `${user.slice(0, 1)}${'*'.repeat(Math.max(1, user.length - 1))}@${domain}`;
}
