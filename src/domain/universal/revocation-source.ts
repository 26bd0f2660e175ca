// Where the revocation data of the universal rendition comes from, checked before it is used
// (pki/revocation-check.ts). Certificates the service issued are answered in process by its own
// OCSP responder and CRLs, exactly what /pki/ocsp and /pki/crl serve. Any other certificate (an
// external TSA's, or an operator CA's whose root key the service does not hold) is answered by the
// addresses that certificate names: OCSP from its Authority Information Access, a CRL from its
// distribution points, fetched with a time limit and a size limit. Those addresses come from
// certificates that chain to a root the operator configured, not from a client, so they do not go
// through the client URL guard. Every answer is kept for the rest of one build: ten signatures
// under one CA fetch its CRL once.
//
// Certificates of signers' own CAs (the SAT's e.firma) may name no responder: the operator's
// responder for that CA is asked instead (`ocspUrlFor`). When it cannot answer now, an answer
// obtained earlier (at signing time) that checks for the certificate is used (`storedOcspDer`).
import { createHash } from 'node:crypto';
import type { Deps } from '../deps.js';
import {
  cachedCertificate,
  certificateUrls,
  checkCrl,
  checkOcspResponse,
  createOcspRequest,
  crlRevokes,
  type CheckedCrl,
  type CheckedOcsp,
} from '../../pki/index.js';

const TIMEOUT_MS = 10_000;
const MAX_OCSP_BYTES = 64 * 1024;
const MAX_CRL_BYTES = 16 * 1024 * 1024;

/** Validation data that could not be had: the rendition is not produced, and this says why. */
export class ValidationDataMissing extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ValidationDataMissing';
  }
}

export interface RevocationSource {
  /** A checked OCSP response saying `cert` is good. Throws ValidationDataMissing. */
  ocsp(certDer: Buffer, issuerDer: Buffer): Promise<{ der: Buffer; checked: CheckedOcsp }>;
  /** A checked CRL of `issuer` that does not list `cert`. Throws ValidationDataMissing. */
  crl(certDer: Buffer, issuerDer: Buffer): Promise<Buffer>;
  /** Whether `cert` names an OCSP responder, or is answered for in process. */
  hasOcsp(certDer: Buffer, issuerDer: Buffer): boolean;
  /** Whether a CRL for `cert` can be asked for. */
  hasCrl(certDer: Buffer, issuerDer: Buffer): boolean;
}

const key = (...parts: Uint8Array[]) => parts.map((p) => createHash('sha256').update(p).digest('hex')).join(':');

/** "C=.., O=.., CN=.." of a certificate, to name it in a reason. */
export function subjectOf(der: Uint8Array): string {
  try {
    return cachedCertificate(der).subject;
  } catch {
    return 'an unparsable certificate';
  }
}

export interface RevocationSourceOptions {
  /** The responder to ask for a certificate that names none (the SAT's, configured by the operator). */
  ocspUrlFor?: (certDer: Buffer, issuerDer: Buffer) => string | undefined;
  /** OCSP answers obtained before (at signing time), used when no fresh one can be had. */
  storedOcspDer?: readonly Buffer[];
}

export function revocationSource(deps: Pick<Deps, 'pki' | 'fetchPkiData'>, opts: RevocationSourceOptions = {}): RevocationSource {
  const pki = deps.pki.pki;
  const ours = (issuerDer: Buffer) => issuerDer.equals(pki.issuing.certificateDer);
  const ourRoot = (issuerDer: Buffer) => issuerDer.equals(pki.root.certificateDer) && pki.root.privateKey !== undefined;
  const fetchFn = deps.fetchPkiData ?? fetch;
  const ocspCache = new Map<string, Promise<{ der: Buffer; checked: CheckedOcsp }>>();
  const crlCache = new Map<string, Promise<{ der: Buffer; checked: CheckedCrl }>>();

  const download = async (url: string, init: RequestInit, limit: number, what: string): Promise<Buffer> => {
    let res: Response;
    try {
      res = await fetchFn(url, { ...init, signal: AbortSignal.timeout(TIMEOUT_MS) });
    } catch (err) {
      throw new ValidationDataMissing(`${what}: ${url} did not answer (${(err as Error).message})`);
    }
    if (!res.ok || !res.body) {
      throw new ValidationDataMissing(`${what}: ${url} answered HTTP ${res.status}`);
    }
    const declared = Number(res.headers.get('content-length') ?? '0');
    if (declared > limit) {
      await res.body.cancel();
      throw new ValidationDataMissing(`${what}: ${url} answered more than ${limit} bytes`);
    }
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of res.body) {
      size += chunk.length;
      if (size > limit) {
        throw new ValidationDataMissing(`${what}: ${url} answered more than ${limit} bytes`);
      }
      chunks.push(Buffer.from(chunk));
    }
    return Buffer.concat(chunks);
  };

  const ocspUrl = (certDer: Buffer, issuerDer: Buffer) => certificateUrls(certDer).ocsp[0] ?? opts.ocspUrlFor?.(certDer, issuerDer);

  const fetchOcsp = async (certDer: Buffer, issuerDer: Buffer) => {
    const what = `OCSP for ${subjectOf(certDer)}`;
    const request = createOcspRequest({ certificateDer: certDer, issuerDer });
    let der: Buffer;
    if (ours(issuerDer)) {
      try {
        der = await deps.pki.ocsp(request);
      } catch (err) {
        throw new ValidationDataMissing(`${what}: the service's OCSP responder failed (${(err as Error).message})`);
      }
    } else {
      const url = ocspUrl(certDer, issuerDer);
      if (!url) {
        throw new ValidationDataMissing(`${what}: the certificate names no OCSP responder`);
      }
      der = await download(
        url,
        {
          method: 'POST',
          headers: { 'content-type': 'application/ocsp-request', accept: 'application/ocsp-response' },
          body: new Uint8Array(request),
        },
        MAX_OCSP_BYTES,
        what,
      );
    }
    let checked: CheckedOcsp;
    try {
      checked = checkOcspResponse(der, { certificateDer: certDer, issuerDer });
    } catch (err) {
      throw new ValidationDataMissing(`${what}: ${(err as Error).message}`);
    }
    if (checked.certStatus !== 'good') {
      throw new ValidationDataMissing(`${what}: the responder says ${checked.certStatus}`);
    }
    return { der, checked };
  };

  /** A stored answer about `cert` that checks and says good. */
  const storedOcsp = (certDer: Buffer, issuerDer: Buffer): { der: Buffer; checked: CheckedOcsp } | undefined => {
    for (const der of opts.storedOcspDer ?? []) {
      try {
        const checked = checkOcspResponse(der, { certificateDer: certDer, issuerDer });
        if (checked.certStatus === 'good') {
          return { der, checked };
        }
      } catch {
        // about another certificate, or unusable: try the next
      }
    }
    return undefined;
  };

  const fetchOcspOrStored = async (certDer: Buffer, issuerDer: Buffer) => {
    try {
      return await fetchOcsp(certDer, issuerDer);
    } catch (err) {
      const stored = err instanceof ValidationDataMissing && !ours(issuerDer) ? storedOcsp(certDer, issuerDer) : undefined;
      if (stored) {
        return stored;
      }
      throw err;
    }
  };

  const fetchCrl = async (certDer: Buffer, issuerDer: Buffer, url: string | undefined) => {
    const what = `CRL for ${subjectOf(certDer)}`;
    let der: Buffer;
    if (ours(issuerDer) || ourRoot(issuerDer)) {
      try {
        der = await deps.pki.crl(ours(issuerDer) ? 'issuing' : 'root');
      } catch (err) {
        throw new ValidationDataMissing(`${what}: the service's CRL failed (${(err as Error).message})`);
      }
    } else if (url) {
      der = await download(url, { method: 'GET', headers: { accept: 'application/pkix-crl' } }, MAX_CRL_BYTES, what);
    } else {
      throw new ValidationDataMissing(`${what}: the certificate names no CRL distribution point`);
    }
    try {
      return { der, checked: checkCrl(der, { issuerDer }) };
    } catch (err) {
      throw new ValidationDataMissing(`${what}: ${(err as Error).message}`);
    }
  };

  return {
    hasOcsp: (certDer, issuerDer) =>
      ours(issuerDer) || ocspUrl(certDer, issuerDer) !== undefined || storedOcsp(certDer, issuerDer) !== undefined,
    hasCrl: (certDer, issuerDer) => ours(issuerDer) || ourRoot(issuerDer) || certificateUrls(certDer).crl.length > 0,
    ocsp(certDer, issuerDer) {
      const k = key(certDer, issuerDer);
      let p = ocspCache.get(k);
      if (!p) {
        p = fetchOcspOrStored(certDer, issuerDer);
        ocspCache.set(k, p);
      }
      return p;
    },
    async crl(certDer, issuerDer) {
      const url = ours(issuerDer) || ourRoot(issuerDer) ? undefined : certificateUrls(certDer).crl[0];
      // One CRL per issuer (and address): it answers for every certificate of that issuer.
      const k = `${key(issuerDer)}:${url ?? 'service'}`;
      let p = crlCache.get(k);
      if (!p) {
        p = fetchCrl(certDer, issuerDer, url);
        crlCache.set(k, p);
      }
      const { der, checked } = await p;
      if (crlRevokes(checked, certDer)) {
        throw new ValidationDataMissing(`CRL for ${subjectOf(certDer)}: the CRL lists the certificate as revoked`);
      }
      return der;
    },
  };
}
