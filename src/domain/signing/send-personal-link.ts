// POST /sign/api/document/{ticket}/link {sticker_id, data}: someone holding `document_url` chooses
// a box and gives the address of its signer; when it is that signer's, their personal signing link
// (the very signer_url of the create response) is emailed to it. Holding the address's mailbox is the
// proof of an EMAIL_LINK signer (decisions.md "Authorities"); an EMAIL signer still enters a code.
// SMS and WHATSAPP signers give their phone number and get the link by SMS or WhatsApp (then a code).
// A SAT signer's data is an RFC, which reaches nobody: they give the email address the sender gave
// for them, and the link goes there (the e.firma then proves who signs); without one, they cannot
// ask here.
//
// Anti-enumeration: the answer is the same whether or not the address matched, whether or not the
// signer can still sign, so the endpoint does not tell who the signers are. Anti-flooding: at most
// LINK_REQUESTS_PER_HOUR requests for one signer of one document an hour, matching or not, counted
// in the document's history.
import type { Transaction } from 'kysely';
import type { Database } from '../../store/schema.js';
import type { Deps } from '../deps.js';
import { AppError, invalid } from '../errors.js';
import { appendHistory } from '../history/append-history.js';
import { queueEmail } from '../mail/queue-email.js';
import { phoneChannelOf, queueMessage } from '../messages/queue-message.js';
import { invitationText } from '../../notify/message-templates.js';
import { signingLink } from '../workflows/signing-link.js';
import { invitationMail } from '../../notify/email-templates.js';
import { findBox, recentLinkRequests } from '../../store/document-page-repo.js';
import { requirePageDocument } from './get-document-page.js';
import { linkBy } from './link-by.js';
import { languageOf } from './workflow-language.js';
import { requireDocumentSignable } from './signing-session.js';
import type { Static } from '@sinclair/typebox';
import type { LinkAnswer, LinkRequestBody } from '../../schemas/signing.js';

/** Invitations one signer of one document may receive in an hour, those sent by a workflow included. */
export const LINK_REQUESTS_PER_HOUR = 3;
const HOUR_MS = 60 * 60_000;
/** Where the link goes: the signer's data, or for a SAT signer the email address the sender gave. */
const addressOf = (box: { authority: string; data: string; email: string | null }) =>
  box.authority === 'SAT' ? (box.email ?? '') : box.data;
const MAX_EMAIL_LENGTH = 254;
const MAX_ID_LENGTH = 100;

export interface LinkRequest {
  stickerId: string;
  data: string;
}

export const LINK_ANSWER = {
  status: 'sent_if_matching',
  message: 'if this address belongs to the signer of that box, a personal signing link was sent to it',
} as const;

/**
 * The body's fields trimmed, or INVALID_INPUT naming the first one at fault. The schema checked
 * they are strings; blank and too long are judged on the trimmed text, which it cannot say.
 */
export function parseLinkRequest(body: Static<typeof LinkRequestBody>): LinkRequest {
  const stickerId = body.sticker_id;
  if (stickerId.trim() === '') {
    throw invalid('sticker_id', 'required: the sticker_id of the box whose signer you are');
  }
  if (stickerId.length > MAX_ID_LENGTH) {
    throw invalid('sticker_id', `at most ${MAX_ID_LENGTH} characters`);
  }
  const data = body.data;
  if (data.trim() === '') {
    throw invalid('data', 'required: the email address (or, for SMS and WHATSAPP, the phone number) of the signer of that box');
  }
  if (data.trim().length > MAX_EMAIL_LENGTH) {
    throw invalid('data', `at most ${MAX_EMAIL_LENGTH} characters`);
  }
  return { stickerId: stickerId.trim(), data: data.trim() };
}

export async function sendPersonalLink(
  deps: Pick<Deps, 'db' | 'clock' | 'config' | 'secrets'>,
  o: { ticket: string; request: LinkRequest; ip?: string },
): Promise<LinkAnswer> {
  return deps.db.transaction().execute(async (trx) => {
    // The document row is locked first (as appendHistory would): two requests for one signer are
    // counted one after the other, so the hourly limit holds under concurrency.
    const doc = await requirePageDocument(trx, o.ticket, true);
    const box = await findBox(trx, doc.id, o.request.stickerId);
    if (!box) {
      throw new AppError('SIGNER_NOT_FOUND', 'sticker_id: no box with this sticker_id on the document', { field: 'sticker_id' });
    }
    requireDocumentSignable(doc.status);
    if (!linkBy(box)) {
      throw new AppError(
        'AUTHORITY_NOT_AVAILABLE',
        box.authority === 'SAT'
          ? 'this SAT signer has no email address on file to send the link to: ask the sender for your signing link'
          : `identifying as a signer of authority ${box.authority} is not available on this server yet`,
        {
          authority: box.authority,
        },
      );
    }
    const now = deps.clock.now();
    await requireRequestsLeft(trx, doc.id, box.signer_id, now);
    const phone = phoneChannelOf(box.authority);
    const matches = phone ? samePhone(o.request.data, box.data) : o.request.data.toLowerCase() === addressOf(box).trim().toLowerCase();
    const canAct = box.status !== 'signed' && box.status !== 'rejected';
    const url = matches && canAct ? signingLink(deps, box.token_sealed) : null;
    if (url) {
      await sendLink(trx, deps, { doc, box, url });
    }
    await appendHistory(trx, {
      documentId: doc.id,
      at: now,
      action: 'link_requested',
      actor: 'public',
      ip: o.ip ?? null,
      details: { signer_id: box.signer_id, sticker_id: box.sticker_id, sent: url !== null },
    });
    return LINK_ANSWER;
  });
}

/**
 * Requests are counted, matching or not, before the address is compared: the refusal then says
 * nothing about what was guessed (counting only emails sent would let repeated guesses tell a right
 * address from a wrong one), and guesses at one box are bounded.
 */
async function requireRequestsLeft(trx: Transaction<Database>, documentId: string, signerId: string, now: Date): Promise<void> {
  const asked = await recentLinkRequests(trx, { documentId, signerId, since: new Date(now.getTime() - HOUR_MS) });
  if (asked.length >= LINK_REQUESTS_PER_HOUR) {
    const frees = asked[asked.length - LINK_REQUESTS_PER_HOUR].getTime() + HOUR_MS;
    const retryAfter = Math.max(1, Math.ceil((frees - now.getTime()) / 1000));
    throw new AppError(
      'RATE_LIMITED',
      `${LINK_REQUESTS_PER_HOUR} links were asked for this box's signer in the last hour; retry in ${retryAfter} s`,
      {
        retry_after: retryAfter,
      },
    );
  }
}

/** The personal link, by SMS or WhatsApp to a phone signer, else by email. */
async function sendLink(
  trx: Transaction<Database>,
  deps: Pick<Deps, 'db' | 'clock' | 'config' | 'secrets'>,
  o: {
    doc: Awaited<ReturnType<typeof requirePageDocument>>;
    box: NonNullable<Awaited<ReturnType<typeof findBox>>>;
    url: string;
  },
): Promise<void> {
  const { doc, box, url } = o;
  const language = languageOf(doc.workflow, deps.config.defaultLanguage);
  const phone = phoneChannelOf(box.authority);
  if (phone) {
    // Without a messages piece left nothing is sent, recorded as a failed message: the answer
    // stays the same, so it tells nothing about the number.
    await queueMessage(trx, deps, {
      accountId: doc.account_id,
      documentId: doc.id,
      signerId: box.signer_id,
      channel: phone,
      kind: 'invitation',
      language,
      to: box.data,
      rendered: invitationText({ language, senderName: doc.account_name, documentName: doc.name, signUrl: url }),
      onExhausted: 'record',
    });
    return;
  }
  await queueEmail(trx, deps, {
    accountId: doc.account_id,
    documentId: doc.id,
    kind: 'invitation',
    to: addressOf(box),
    mail: invitationMail({
      language,
      signerName: box.name,
      documentName: doc.name,
      signUrl: url,
      senderName: doc.account_name,
    }),
  });
}

/** Phone numbers compared by their digits: "+52 55 1234 5678" is the box's "+525512345678". */
function samePhone(given: string, data: string): boolean {
  const digits = (v: string) => v.replace(/[\s().-]/g, '');
  return /^\+\d+$/.test(digits(given)) && digits(given) === digits(data.trim());
}
