// The NOM-151 conservation provider: the operator's certification-service provider (PSC), an RFC
// 3161 service at SELLO_NOM151_URL, or else the service's own time-stamp authority, which every
// answer labels as such (it is not an accredited PSC). Every token is checked before anyone
// stores it: granted status, the imprint and nonce of this request, the authority's signature,
// its chain to the configured roots (pki/tsa-verify.ts, the one verifier) and, when configured,
// the policy.
import { AppError } from '../errors.js';
import type { Deps, Nom151Psc } from '../deps.js';
import { PkiError, verifyTimeStampReply } from '../../pki/index.js';
import { createTimeStampRequest, randomNonce } from '../../pki/tsa-request.js';
import { recognizedAuthority } from './stamp-authority.js';

const TIMEOUT_MS = 15_000;
const MAX_REPLY_BYTES = 256 * 1024;

export type ProviderKind = 'built_in' | 'psc';

/** How each answer names the provider kind, for people reading it. */
export const PROVIDER_DESCRIPTION: Record<ProviderKind, string> = {
  built_in: "the service's own time-stamp authority, not an accredited NOM-151 certification-service provider (PSC)",
  psc: "the operator's NOM-151 certification-service provider (PSC)",
};

/** A checked stamp. */
export interface IssuedStamp {
  /** The TimeStampToken (DER) as the authority encoded it. */
  token: Buffer;
  provider: ProviderKind;
  /** Subject of the authority's certificate. */
  tsa: string;
  genTime: Date;
  serial: string;
  /** The covered SHA-256, hex. */
  hash: string;
}

export interface StampProvider {
  kind: ProviderKind;
  stamp(imprint: Uint8Array): Promise<IssuedStamp>;
}

/** The roots each kind of token must chain to: the service's own root, and the PSC's. */
export function stampRoots(deps: Pick<Deps, 'pki' | 'nom151Psc'>): Record<ProviderKind, Buffer[]> {
  return { built_in: [deps.pki.pki.root.certificateDer], psc: deps.nom151Psc?.trustedRootsDer ?? [] };
}

export function stampProvider(deps: Pick<Deps, 'pki' | 'nom151Psc' | 'clock'>): StampProvider {
  const psc = deps.nom151Psc;
  const kind: ProviderKind = psc ? 'psc' : 'built_in';
  const roots = stampRoots(deps)[kind];
  return {
    kind,
    async stamp(imprint) {
      const nonce = randomNonce();
      const request = createTimeStampRequest(imprint, nonce, true, psc?.policyOid);
      const reply = psc ? await askPsc(psc, request) : await askBuiltIn(deps, request);
      try {
        const v = await verifyTimeStampReply(reply, {
          expectedImprint: imprint,
          expectedNonce: nonce,
          trustedRootsDer: roots,
          now: deps.clock.now(),
        });
        if (psc?.policyOid && v.policyOid !== psc.policyOid) {
          throw new PkiError('timestamp_invalid', `the token is under policy ${v.policyOid}, not ${psc.policyOid}`);
        }
        // Chaining to the PSC's root is not enough when the configuration names its authority.
        if (psc && recognizedAuthority(deps, { tsaCertificateDer: v.tsaCertificateDer, chainsToPsc: true }) !== 'psc') {
          throw new PkiError('timestamp_invalid', `the token is signed by ${v.tsaSubject}, not by the configured PSC's authority`);
        }
        return {
          token: v.tokenDer,
          provider: kind,
          tsa: v.tsaSubject,
          genTime: v.genTime,
          serial: v.serialNumber,
          hash: Buffer.from(imprint).toString('hex'),
        };
      } catch (err) {
        if (err instanceof PkiError) {
          throw new AppError(
            'STAMP_REFUSED',
            `the ${kind === 'psc' ? 'NOM-151 provider' : 'time-stamp authority'}'s answer was refused: ${err.message}`,
          );
        }
        throw err;
      }
    },
  };
}

async function askBuiltIn(deps: Pick<Deps, 'pki'>, request: Buffer): Promise<Buffer> {
  try {
    return await deps.pki.timestamp(request);
  } catch (err) {
    throw new AppError('STAMP_PROVIDER_UNAVAILABLE', 'the time-stamp authority is not available', undefined, err);
  }
}

/** The operator's URL, not a client's: it may be on the operator's network, so no client URL guard. */
async function askPsc(psc: Nom151Psc, request: Buffer): Promise<Buffer> {
  const headers: Record<string, string> = { 'content-type': 'application/timestamp-query', accept: 'application/timestamp-reply' };
  if (psc.user !== undefined) {
    headers.authorization = `Basic ${Buffer.from(`${psc.user}:${psc.password ?? ''}`, 'utf8').toString('base64')}`;
  }
  let res: Response;
  try {
    res = await fetch(psc.url, { method: 'POST', headers, body: new Uint8Array(request), signal: AbortSignal.timeout(TIMEOUT_MS) });
  } catch (err) {
    throw new AppError(
      'STAMP_PROVIDER_UNAVAILABLE',
      `the NOM-151 provider did not answer: ${(err as Error).message}; nothing was stamped, try again later`,
      undefined,
      err,
    );
  }
  const body = Buffer.from(await res.arrayBuffer().catch(() => new ArrayBuffer(0)));
  if (!res.ok || body.length === 0 || body.length > MAX_REPLY_BYTES) {
    throw new AppError(
      'STAMP_PROVIDER_UNAVAILABLE',
      `the NOM-151 provider answered HTTP ${res.status}${res.ok ? ` with ${body.length} bytes` : ''}; nothing was stamped, try again later`,
    );
  }
  return body;
}
