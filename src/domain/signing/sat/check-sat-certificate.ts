// The checks a SAT signer's certificate passes before anything is prepared for it: an e.firma (not
// a seal certificate), the sticker's RFC, within its validity, issued under the SAT's CAs the
// operator trusts (SELLO_SAT_TRUST_PEM), and not revoked according to the SAT's OCSP responder
// (SELLO_SAT_OCSP_URL). The browser makes the same checks first, to explain them to the signer;
// these are the ones that count.
import { AppError } from '../../errors.js';
import type { Deps } from '../../deps.js';
import { PkiError, createOcspRequest, validateChain } from '../../../pki/index.js';
import { readOcspResponse } from '../../../pki/ocsp-client.js';
import { type SatCertificate, readSatCertificate, splitTrust } from '../../../pki/sat-certificate.js';

const OCSP_TIMEOUT_MS = 10_000;
const MAX_OCSP_BYTES = 64 * 1024;

export interface CheckedSatCertificate {
  cert: SatCertificate;
  /** The issuing CAs up to the SAT root, for the CMS. */
  chainDer: Buffer[];
  /** What the SAT's responder said; unknown when it was not configured or could not be reached. */
  status: 'good' | 'unknown';
  /** The responder's answer (DER) when it gave one, kept for the universal rendition. */
  ocspResponseDer?: Buffer;
}

type Reason = 'unreadable' | 'csd' | 'rfc_mismatch' | 'expired' | 'not_yet_valid' | 'untrusted' | 'revoked';

const refused = (reason: Reason, message: string) => new AppError('SAT_CERTIFICATE_REFUSED', message, { reason });

/** The SAT's trust anchors and issuing CAs; AUTHORITY_NOT_AVAILABLE when the operator configured none. */
export function satTrust(deps: Pick<Deps, 'config'>) {
  if (deps.config.sat.trustedDer.length === 0) {
    throw new AppError('AUTHORITY_NOT_AVAILABLE', 'signing with the SAT e.firma is not configured on this server (SELLO_SAT_TRUST_PEM)', {
      authority: 'SAT',
    });
  }
  return splitTrust(deps.config.sat.trustedDer);
}

/** The certificate's path to the SAT root at `at`, or SAT_CERTIFICATE_REFUSED. */
export function satChain(deps: Pick<Deps, 'config'>, der: Uint8Array, at: Date): Buffer[] {
  const trust = satTrust(deps);
  const path = validateChain(der, { trustedRootsDer: trust.anchors, untrustedDer: trust.intermediates, at: [at] });
  if (!path.ok) {
    const { problem } = path;
    if (problem.kind === 'expired' || problem.kind === 'not_yet_valid') {
      throw refused(problem.kind, `a certificate of the chain is not valid now: ${problem.message}`);
    }
    throw refused('untrusted', `the certificate is not issued by the SAT's certification authorities (${problem.message})`);
  }
  return path.path;
}

export async function checkSatCertificate(deps: Pick<Deps, 'config' | 'clock'>, der: Buffer, rfc: string): Promise<CheckedSatCertificate> {
  satTrust(deps);
  let cert: SatCertificate;
  try {
    cert = readSatCertificate(der);
  } catch (err) {
    throw refused('unreadable', `the certificate cannot be read as an SAT certificate: ${(err as Error).message}`);
  }
  if (cert.kind === 'CSD') {
    throw refused('csd', 'this is a seal certificate (CSD), which only seals invoices; sign with your e.firma (FIEL)');
  }
  if (cert.rfc !== rfc.toUpperCase()) {
    throw refused('rfc_mismatch', `the certificate is for RFC ${cert.rfc}; this signature is for RFC ${rfc}`);
  }
  const now = deps.clock.now();
  if (now < cert.notBefore) {
    throw refused('not_yet_valid', `the certificate is valid from ${cert.notBefore.toISOString()}`);
  }
  if (now > cert.notAfter) {
    throw refused('expired', `the certificate expired on ${cert.notAfter.toISOString()}; renew your e.firma with the SAT`);
  }
  const path = satChain(deps, der, now);
  const revocation = await revocationStatus(deps, der, path[1], now);
  return { cert, chainDer: path.slice(1), ...revocation };
}

/** Good (with the answer) or unknown; SAT_CERTIFICATE_REFUSED for a revoked certificate. */
async function revocationStatus(
  deps: Pick<Deps, 'config'>,
  der: Buffer,
  issuerDer: Buffer,
  now: Date,
): Promise<{ status: 'good' | 'unknown'; ocspResponseDer?: Buffer }> {
  const unknown = { status: 'unknown' as const };
  const url = deps.config.sat.ocspUrl;
  if (!url) {
    return unknown;
  }
  let answer: Buffer;
  try {
    // The operator's own setting, not a client's URL: it does not go through the client URL guard.
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/ocsp-request', accept: 'application/ocsp-response' },
      body: new Uint8Array(createOcspRequest({ certificateDer: der, issuerDer })),
      signal: AbortSignal.timeout(OCSP_TIMEOUT_MS),
    });
    answer = Buffer.from(await res.arrayBuffer());
    if (!res.ok || answer.length > MAX_OCSP_BYTES) {
      return unknown;
    }
  } catch {
    // Unreachable: the signature is made, and the report says its status is unknown (see docs/api.md).
    return unknown;
  }
  let status: ReturnType<typeof readOcspResponse>;
  try {
    status = readOcspResponse(answer, { certificateDer: der, issuerDer, at: now });
  } catch (err) {
    if (err instanceof PkiError) {
      return unknown;
    }
    throw err;
  }
  if (status.status === 'revoked') {
    throw refused('revoked', `the SAT reports this certificate revoked since ${status.revokedAt.toISOString()}`);
  }
  return status.status === 'good' ? { status: 'good', ocspResponseDer: answer } : unknown;
}
