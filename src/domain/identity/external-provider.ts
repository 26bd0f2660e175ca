// Identity verification by an external provider, for operators who contract one (the
// SELLO_IDENTITY_PROVIDER_* settings). The protocol (docs/api.md, "External providers") is one
// adapter any provider can be fitted to:
//   1. start: the service POSTs `${url}/sessions` (Bearer key) with a reference (the review's id),
//      the signer's name and email, where to send them back and where to call back; the provider
//      answers {id, url}, and the signer page sends the signer to `url`;
//   2. result: the provider POSTs {reference, outcome: "approved" | "rejected", reason?} to
//      /identity/provider/callback, signed with `X-Sello-Signature: sha256=<hex HMAC-SHA256 of
//      the raw body>` under the shared secret. Anything unsigned or badly signed changes nothing.
// The result decides the review as a person would (reviews.ts applyDecision), once.
import { createHmac, randomUUID, timingSafeEqual } from 'node:crypto';
import { checkInput } from '../check-input.js';
import { AppError } from '../errors.js';
import { ProviderResult } from '../../schemas/identity.js';
import type { Deps } from '../deps.js';
import { consumePiece } from '../packages/consume-piece.js';
import { coveredRowsOf, findProviderReview, insertReview } from '../../store/identity-repo.js';
import { openVerifying, recordSubmitted } from './capture-evidence.js';
import { applyDecision } from './reviews.js';

const TIMEOUT_MS = 15_000;

function providerOf(deps: Pick<Deps, 'config'>) {
  const provider = deps.config.identity.provider;
  if (!provider) {
    throw new AppError('PROVIDER_NOT_AVAILABLE', 'no identity verification provider is configured on this server');
  }
  return provider;
}

export async function startProviderVerification(
  deps: Pick<Deps, 'db' | 'clock' | 'config'>,
  o: {
    token: string;
    ip?: string;
    /** Where the provider sends the signer back: the page they came from (a set's, for a set signer). */
    returnPath?: string;
  },
): Promise<{ url: string }> {
  const provider = providerOf(deps);
  const s = await deps.db.transaction().execute((trx) => openVerifying(trx, o.token));
  const reference = randomUUID();
  let session: { id: string; url: string };
  try {
    // The operator's own setting, not a client's URL: it does not go through the client URL guard.
    const res = await fetch(`${provider.url}/sessions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${provider.apiKey}`, 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({
        reference,
        signer: { name: s.signer.name, email: s.signer.email },
        return_url: `${deps.config.publicUrl}${o.returnPath ?? `/sign/${o.token}`}`,
        callback_url: `${deps.config.publicUrl}/identity/provider/callback`,
      }),
      signal: AbortSignal.timeout(TIMEOUT_MS),
    });
    const body = (await res.json().catch(() => undefined)) as { id?: unknown; url?: unknown } | undefined;
    if (!res.ok || typeof body?.id !== 'string' || typeof body.url !== 'string' || !/^https?:\/\//.test(body.url)) {
      throw new Error(`it answered HTTP ${res.status} without {id, url}`);
    }
    session = { id: body.id, url: body.url };
  } catch (err) {
    throw new AppError('PROVIDER_UNAVAILABLE', `the identity verification provider could not start a session: ${(err as Error).message}`);
  }
  await deps.db.transaction().execute(async (trx) => {
    const now = deps.clock.now();
    const again = await openVerifying(trx, o.token); // nothing submitted meanwhile
    const { subject } = again;
    await insertReview(trx, {
      id: reference,
      accountId: again.document.account_id,
      documentId: subject.documentId,
      signerRowId: subject.rowId,
      setSignerId: subject.setSignerId,
      checks: { provider: { name: provider.name, session: session.id } },
      at: now,
      provider: { name: provider.name, session: session.id },
    });
    await consumePiece(trx, {
      accountId: again.document.account_id,
      kind: 'verifications',
      channel: 'provider',
      documentId: subject.documentId,
      at: now,
    });
    // A set signer's session covers each of their documents of the set: each history says so.
    await recordSubmitted(trx, await coveredRowsOf(trx, subject), {
      at: now,
      ip: o.ip ?? null,
      details: { review_id: reference, provider: provider.name, session: session.id },
    });
  });
  return { url: session.url };
}

/** The provider's signed result. Answers how many reviews it decided (0: decided already). */
export async function receiveProviderResult(
  deps: Pick<Deps, 'db' | 'clock' | 'config'>,
  o: { rawBody: Buffer | undefined; signature: string | undefined },
): Promise<{ status: 'ok'; applied: number }> {
  const provider = providerOf(deps);
  const expected = createHmac('sha256', provider.callbackSecret)
    .update(o.rawBody ?? Buffer.alloc(0))
    .digest();
  const given = /^sha256=([0-9a-f]{64})$/i.exec(o.signature ?? '')?.[1];
  if (!given || !timingSafeEqual(Buffer.from(given, 'hex'), expected)) {
    throw new AppError('CALLBACK_SIGNATURE_INVALID', 'X-Sello-Signature is missing or does not match the body');
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse((o.rawBody ?? Buffer.alloc(0)).toString('utf8'));
  } catch {
    throw new AppError('INVALID_JSON', 'the body is not valid JSON');
  }
  // The route could not check the body before the signature was: it is checked here, by its schema.
  const body = checkInput(ProviderResult, parsed);
  const reference = body.reference;
  const approved = body.outcome === 'approved';
  const reason = body.reason?.trim() ? body.reason.trim().slice(0, 500) : null;
  return deps.db.transaction().execute(async (trx) => {
    const r = await findProviderReview(trx, reference);
    if (!r) {
      throw new AppError('REVIEW_NOT_FOUND', `no review started with the provider under reference ${reference}`);
    }
    if (r.status !== 'pending') {
      return { status: 'ok' as const, applied: 0 }; // a repeated callback
    }
    await applyDecision(trx, deps, r, { approved, reason: approved ? null : (reason ?? `not verified by ${r.provider}`), actor: 'system' });
    return { status: 'ok' as const, applied: 1 };
  });
}
