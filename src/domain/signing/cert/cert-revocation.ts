// Whether a CERT signer's certificate is revoked, asked where the certificate itself says
// (RFC 5280 §4.2.2.1 Authority Information Access, §4.2.1.13 CRL distribution points): its OCSP
// responder first, then its CRL when no responder answers. Those addresses come from a certificate
// that already chains to a CA the operator trusts, not from a client. An answer that cannot be had
// or checked leaves the status unknown: the signature is made and the report says so, as for the SAT.
import type { Deps } from '../../deps.js';
import { PkiError, certificateUrls, checkCrl, createOcspRequest, crlRevokes } from '../../../pki/index.js';
import { readOcspResponse } from '../../../pki/ocsp-client.js';

const TIMEOUT_MS = 10_000;
const MAX_OCSP_BYTES = 64 * 1024;
const MAX_CRL_BYTES = 4 * 1024 * 1024;

export type Revocation =
  | { status: 'good'; ocspResponseDer?: Buffer }
  | { status: 'unknown' }
  | { status: 'revoked'; revokedAt?: Date; source: 'ocsp' | 'crl' };

async function download(deps: Pick<Deps, 'fetchPkiData'>, url: string, init: RequestInit, limit: number): Promise<Buffer | undefined> {
  try {
    const res = await (deps.fetchPkiData ?? fetch)(url, { ...init, signal: AbortSignal.timeout(TIMEOUT_MS) });
    const body = Buffer.from(await res.arrayBuffer());
    return res.ok && body.length <= limit ? body : undefined;
  } catch {
    return undefined;
  }
}

async function byOcsp(deps: Pick<Deps, 'fetchPkiData'>, url: string, der: Buffer, issuerDer: Buffer, now: Date): Promise<Revocation> {
  const answer = await download(
    deps,
    url,
    {
      method: 'POST',
      headers: { 'content-type': 'application/ocsp-request', accept: 'application/ocsp-response' },
      body: new Uint8Array(createOcspRequest({ certificateDer: der, issuerDer })),
    },
    MAX_OCSP_BYTES,
  );
  if (!answer) {
    return { status: 'unknown' };
  }
  try {
    const s = readOcspResponse(answer, { certificateDer: der, issuerDer, at: now });
    if (s.status === 'revoked') {
      return { status: 'revoked', revokedAt: s.revokedAt, source: 'ocsp' };
    }
    return s.status === 'good' ? { status: 'good', ocspResponseDer: answer } : { status: 'unknown' };
  } catch (err) {
    if (err instanceof PkiError) {
      return { status: 'unknown' };
    }
    throw err;
  }
}

async function byCrl(deps: Pick<Deps, 'fetchPkiData'>, url: string, der: Buffer, issuerDer: Buffer, now: Date): Promise<Revocation> {
  const body = await download(deps, url, { method: 'GET' }, MAX_CRL_BYTES);
  if (!body) {
    return { status: 'unknown' };
  }
  try {
    const crl = checkCrl(body, { issuerDer });
    // A CRL past its nextUpdate says nothing about today (RFC 5280 §5.1.2.5).
    if (crl.thisUpdate > now || (crl.nextUpdate && crl.nextUpdate < now)) {
      return { status: 'unknown' };
    }
    return crlRevokes(crl, der) ? { status: 'revoked', source: 'crl' } : { status: 'good' };
  } catch (err) {
    if (err instanceof PkiError) {
      return { status: 'unknown' };
    }
    throw err;
  }
}

/** OCSP at the certificate's responders, then its CRLs; the first definite answer decides. */
export async function certRevocation(deps: Pick<Deps, 'fetchPkiData'>, der: Buffer, issuerDer: Buffer, now: Date): Promise<Revocation> {
  const urls = certificateUrls(der);
  for (const url of urls.ocsp) {
    const r = await byOcsp(deps, url, der, issuerDer, now);
    if (r.status !== 'unknown') {
      return r;
    }
  }
  for (const url of urls.crl) {
    const r = await byCrl(deps, url, der, issuerDer, now);
    if (r.status !== 'unknown') {
      return r;
    }
  }
  return { status: 'unknown' };
}
