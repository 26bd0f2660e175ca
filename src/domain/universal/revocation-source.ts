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
  return new RevocationFetcher(deps, opts);
}

type Fetch = NonNullable<Deps['fetchPkiData']>;

/** A response body read up to `limit` bytes, whatever Content-Length claims. */
async function download(fetchFn: Fetch, url: string, init: RequestInit, limit: number, what: string): Promise<Buffer> {
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
}

/** Asks once per certificate (OCSP) or issuer (CRL) within one rendition; the service's own PKI answers in process. */
class RevocationFetcher implements RevocationSource {
  private readonly fetchFn: Fetch;
  private readonly pki: Deps['pki']['pki'];
  private readonly ocspCache = new Map<string, Promise<{ der: Buffer; checked: CheckedOcsp }>>();
  private readonly crlCache = new Map<string, Promise<{ der: Buffer; checked: CheckedCrl }>>();

  constructor(
    private readonly deps: Pick<Deps, 'pki' | 'fetchPkiData'>,
    private readonly opts: RevocationSourceOptions,
  ) {
    this.fetchFn = deps.fetchPkiData ?? fetch;
    this.pki = deps.pki.pki;
  }

  hasOcsp(certDer: Buffer, issuerDer: Buffer): boolean {
    return this.ours(issuerDer) || this.ocspUrl(certDer, issuerDer) !== undefined || this.storedOcsp(certDer, issuerDer) !== undefined;
  }

  hasCrl(certDer: Buffer, issuerDer: Buffer): boolean {
    return this.ours(issuerDer) || this.ourRoot(issuerDer) || certificateUrls(certDer).crl.length > 0;
  }

  ocsp(certDer: Buffer, issuerDer: Buffer): Promise<{ der: Buffer; checked: CheckedOcsp }> {
    const k = key(certDer, issuerDer);
    let p = this.ocspCache.get(k);
    if (!p) {
      p = this.fetchOcspOrStored(certDer, issuerDer);
      this.ocspCache.set(k, p);
    }
    return p;
  }

  async crl(certDer: Buffer, issuerDer: Buffer): Promise<Buffer> {
    const url = this.ours(issuerDer) || this.ourRoot(issuerDer) ? undefined : certificateUrls(certDer).crl[0];
    // One CRL per issuer (and address): it answers for every certificate of that issuer.
    const k = `${key(issuerDer)}:${url ?? 'service'}`;
    let p = this.crlCache.get(k);
    if (!p) {
      p = this.fetchCrl(certDer, issuerDer, url);
      this.crlCache.set(k, p);
    }
    const { der, checked } = await p;
    if (crlRevokes(checked, certDer)) {
      throw new ValidationDataMissing(`CRL for ${subjectOf(certDer)}: the CRL lists the certificate as revoked`);
    }
    return der;
  }

  private ours(issuerDer: Buffer): boolean {
    return issuerDer.equals(this.pki.issuing.certificateDer);
  }

  private ourRoot(issuerDer: Buffer): boolean {
    const root = this.pki.root;
    return issuerDer.equals(root.certificateDer) && root.key !== undefined;
  }

  private ocspUrl(certDer: Buffer, issuerDer: Buffer): string | undefined {
    return certificateUrls(certDer).ocsp[0] ?? this.opts.ocspUrlFor?.(certDer, issuerDer);
  }

  private async fetchOcsp(certDer: Buffer, issuerDer: Buffer): Promise<{ der: Buffer; checked: CheckedOcsp }> {
    const what = `OCSP for ${subjectOf(certDer)}`;
    const request = createOcspRequest({ certificateDer: certDer, issuerDer });
    let der: Buffer;
    if (this.ours(issuerDer)) {
      try {
        der = await this.deps.pki.ocsp(request);
      } catch (err) {
        throw new ValidationDataMissing(`${what}: the service's OCSP responder failed (${(err as Error).message})`);
      }
    } else {
      const url = this.ocspUrl(certDer, issuerDer);
      if (!url) {
        throw new ValidationDataMissing(`${what}: the certificate names no OCSP responder`);
      }
      const init = {
        method: 'POST',
        headers: { 'content-type': 'application/ocsp-request', accept: 'application/ocsp-response' },
        body: new Uint8Array(request),
      };
      der = await download(this.fetchFn, url, init, MAX_OCSP_BYTES, what);
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
  }

  /** A stored answer about `cert` that checks and says good. */
  private storedOcsp(certDer: Buffer, issuerDer: Buffer): { der: Buffer; checked: CheckedOcsp } | undefined {
    for (const der of this.opts.storedOcspDer ?? []) {
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
  }

  private async fetchOcspOrStored(certDer: Buffer, issuerDer: Buffer): Promise<{ der: Buffer; checked: CheckedOcsp }> {
    try {
      return await this.fetchOcsp(certDer, issuerDer);
    } catch (err) {
      const stored = err instanceof ValidationDataMissing && !this.ours(issuerDer) ? this.storedOcsp(certDer, issuerDer) : undefined;
      if (stored) {
        return stored;
      }
      throw err;
    }
  }

  private async fetchCrl(certDer: Buffer, issuerDer: Buffer, url: string | undefined): Promise<{ der: Buffer; checked: CheckedCrl }> {
    const what = `CRL for ${subjectOf(certDer)}`;
    let der: Buffer;
    if (this.ours(issuerDer) || this.ourRoot(issuerDer)) {
      try {
        der = await this.deps.pki.crl(this.ours(issuerDer) ? 'issuing' : 'root');
      } catch (err) {
        throw new ValidationDataMissing(`${what}: the service's CRL failed (${(err as Error).message})`);
      }
    } else if (url) {
      der = await download(this.fetchFn, url, { method: 'GET', headers: { accept: 'application/pkix-crl' } }, MAX_CRL_BYTES, what);
    } else {
      throw new ValidationDataMissing(`${what}: the certificate names no CRL distribution point`);
    }
    try {
      return { der, checked: checkCrl(der, { issuerDer }) };
    } catch (err) {
      throw new ValidationDataMissing(`${what}: ${(err as Error).message}`);
    }
  }
}
