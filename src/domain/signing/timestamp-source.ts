// Where a signature's time stamp comes from: the built-in TSA (in process), or the external RFC
// 3161 authority the operator configured (SELLO_TSA_URL). Either way the reply is checked by the
// PDF signer against the trusted roots before it is embedded.
import { AppError } from '../errors.js';
import type { Deps } from '../deps.js';
import { createTimeStampRequest } from '../../pki/tsa-request.js';

const TIMEOUT_MS = 15_000;
const MAX_REPLY_BYTES = 256 * 1024;

export interface TimestampSource {
  timestamp: (imprint: Uint8Array, nonce: Uint8Array) => Promise<Uint8Array>;
  trustedRootsDer: Uint8Array[];
}

export function timestampSource(deps: Pick<Deps, 'pki' | 'externalTsa'>): TimestampSource {
  const ext = deps.externalTsa;
  if (!ext) {
    return {
      timestamp: (imprint, nonce) => deps.pki.timestamp(createTimeStampRequest(imprint, nonce)),
      trustedRootsDer: [deps.pki.pki.root.certificateDer],
    };
  }
  return {
    // The operator's own URL, not a client's: it may be on the operator's network, so it does not
    // go through the client URL guard.
    timestamp: async (imprint, nonce) => {
      let res: Response;
      try {
        res = await fetch(ext.url, {
          method: 'POST',
          headers: { 'content-type': 'application/timestamp-query', accept: 'application/timestamp-reply' },
          body: new Uint8Array(createTimeStampRequest(imprint, nonce)),
          signal: AbortSignal.timeout(TIMEOUT_MS),
        });
      } catch (err) {
        throw new AppError('SIGNING_FAILED', `the time-stamp authority did not answer: ${(err as Error).message}`);
      }
      const body = Buffer.from(await res.arrayBuffer());
      if (!res.ok || body.length === 0 || body.length > MAX_REPLY_BYTES) {
        throw new AppError('SIGNING_FAILED', `the time-stamp authority answered HTTP ${res.status}`);
      }
      return body;
    },
    // Signer certificates still chain to the service root; the TSA's token to the operator's.
    trustedRootsDer: [deps.pki.pki.root.certificateDer, ...ext.trustedRootsDer],
  };
}
