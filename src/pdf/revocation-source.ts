// Gap 4: when @libpdf/core gathers validation data (B-LT: sign({ longTermValidation }),
// addValidationData(), addArchivalData()) and is given no provider, it uses its
// DefaultRevocationProvider, which fetches the OCSP/CRL URLs found in certificates (network from
// pdf/, against the house rule) and swallows every failure (a warning at best, nothing at worst),
// so a "B-LT" document can silently lack the data that makes it B-LT (EN 319 142-1 §6.3, B-LT:
// revocation values for the whole path shall be in the DSS). signPdf (B-T) never lets the library
// gather anything. For the LTV step, this provider answers only from our own OCSP responder and
// remembers every certificate it could not cover, so the caller fails loudly with assertComplete().
// The universal rendition (PAdES B-LTA) does not go through the library's gathering at all: it
// gathers and checks OCSP responses and CRLs in domain/universal/ (the service's own in process, an
// external TSA's from the addresses in its certificates) and writes them with dss-revision.ts.
import type { RevocationProvider } from '@libpdf/core';
import * as pkijs from 'pkijs';
import { OID } from '../pki/cms/oids.js';
import { PdfSignError } from './sign-errors.js';

/** Where revocation data comes from: our OCSP responder, in process. */
export interface RevocationSource {
  ocsp?: (certDer: Uint8Array, issuerDer: Uint8Array) => Promise<Uint8Array>;
}

function describe(der: Uint8Array): string {
  try {
    const cert = pkijs.Certificate.fromBER(new Uint8Array(der));
    const cn = cert.subject.typesAndValues.find((tv) => tv.type === OID.commonName);
    return cn ? `"${String(cn.value.valueBlock.value)}"` : 'a certificate without CN';
  } catch {
    return 'an unparsable certificate';
  }
}

/**
 * A RevocationProvider that asks only `source` (never the network), has no CRL fallback to hide
 * behind, and records each certificate left without revocation data.
 */
export function strictRevocationProvider(source: RevocationSource | undefined): {
  provider: RevocationProvider;
  /** Throws SIGNING_FAILED naming every certificate the library asked about and did not get data for. */
  assertComplete(): void;
} {
  const missing: string[] = [];
  const provider: RevocationProvider = {
    async getOCSP(cert, issuer) {
      if (!source?.ocsp) {
        missing.push(`${describe(cert)}: no OCSP source configured`);
        return null;
      }
      try {
        const der = await source.ocsp(cert, issuer);
        // RFC 6960 §4.2.1: responseStatus 0 = successful; anything else has no answer in it.
        const status = pkijs.OCSPResponse.fromBER(new Uint8Array(der)).responseStatus.valueBlock.valueDec;
        if (status !== 0) {
          missing.push(`${describe(cert)}: OCSP responseStatus ${status}`);
          return null;
        }
        return der;
      } catch (err) {
        missing.push(`${describe(cert)}: ${(err as Error).message}`);
        return null;
      }
    },
  };
  return {
    provider,
    assertComplete() {
      if (missing.length > 0) {
        throw new PdfSignError('SIGNING_FAILED', `revocation data is missing for ${missing.join('; ')}`);
      }
    },
  };
}
