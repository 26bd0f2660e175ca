// Judges a time-stamp token against the hash it should cover, one check at a time, so that an
// answer says why a stamp is not valid: well-formed, imprint, signature, chain, authority, time.
// The signature and the chain are judged by the service's one verifier (pki/cms/timestamp-token.ts):
// first with the token's own certificates as anchors (is it signed by the certificate it names?),
// then with the roots the service recognizes (does that certificate chain to one of them?). Whether the
// signer is the authority configured is a further check (stamp-authority.ts): a trusted root may
// vouch for other authorities than the PSC.
import type { Deps } from '../deps.js';
import { PkiError, verifyTimeStampToken } from '../../pki/index.js';
import { readTimeStampTokenInfo } from '../../pki/cms/timestamp-token-info.js';
import { recognizedAuthority } from './stamp-authority.js';
import { PROVIDER_DESCRIPTION, type ProviderKind, stampRoots } from './stamp-provider.js';

export interface TokenCheck {
  valid: boolean;
  checks: {
    well_formed: boolean;
    imprint_matches: boolean;
    signature_valid: boolean;
    chain_trusted: boolean;
    authority_recognized: boolean;
  };
  /** The first check that failed, in words; null when valid. */
  problem: string | null;
  /** Subject of the authority's certificate, when the token carries it. */
  tsa: string | null;
  /** Which recognized authority issued it: the built-in one or the operator's PSC; null when neither. */
  provider: ProviderKind | null;
  provider_description: string | null;
  gen_time: string | null;
  serial: string | null;
  /** The hash the token attests (hex), whatever it was checked against. */
  stamped_hash: string | null;
}

const message = (err: unknown) => (err instanceof PkiError ? err.message : String((err as Error)?.message ?? err));

export async function checkToken(deps: Pick<Deps, 'pki' | 'nom151Psc'>, token: Uint8Array, expectedHash: Uint8Array): Promise<TokenCheck> {
  const result: TokenCheck = {
    valid: false,
    checks: { well_formed: false, imprint_matches: false, signature_valid: false, chain_trusted: false, authority_recognized: false },
    problem: null,
    tsa: null,
    provider: null,
    provider_description: null,
    gen_time: null,
    serial: null,
    stamped_hash: null,
  };
  const info = readTimeStampTokenInfo(token);
  if (!info) {
    result.problem = 'the time stamp is not an RFC 3161 TimeStampToken (CMS SignedData over a TSTInfo)';
    return result;
  }
  result.checks.well_formed = true;
  result.tsa = info.tsaSubject ?? null;
  result.gen_time = info.genTime.toISOString();
  result.serial = info.serialNumber;
  result.stamped_hash = info.imprint.toString('hex');
  result.checks.imprint_matches = info.imprintAlgorithm === 'SHA-256' && info.imprint.equals(Buffer.from(expectedHash));
  const problems: string[] = [];
  if (!result.checks.imprint_matches) {
    problems.push(
      info.imprintAlgorithm === 'SHA-256'
        ? 'the time stamp covers another hash'
        : `the time stamp's imprint is ${info.imprintAlgorithm ?? 'of an unknown algorithm'}, not SHA-256`,
    );
  }
  const roots = stampRoots(deps);
  const base = { expectedImprint: info.imprint, expectedImprintAlgorithm: info.imprintAlgorithm ?? ('SHA-256' as const) };
  let tsaCertificateDer: Buffer | undefined;
  try {
    // Anchored on its own certificates, only the signature (and the certificate's fitness) is judged.
    const own = await verifyTimeStampToken(token, { ...base, trustedRootsDer: [...info.certificatesDer, ...roots.built_in, ...roots.psc] });
    result.tsa = own.tsaSubject;
    tsaCertificateDer = own.tsaCertificateDer;
    result.checks.signature_valid = true;
  } catch (err) {
    problems.push(message(err));
  }
  if (tsaCertificateDer) {
    // Two questions: does its certificate chain to a trust anchor the service was given (its own
    // root, SELLO_NOM151_TRUST_PEM), and is its signer the authority configured (stamp-authority.ts)?
    const chainsTo: Record<ProviderKind, boolean> = { built_in: false, psc: false };
    for (const kind of ['built_in', 'psc'] as const) {
      if (roots[kind].length === 0) {
        continue;
      }
      try {
        await verifyTimeStampToken(token, { ...base, trustedRootsDer: roots[kind] });
        chainsTo[kind] = true;
      } catch {
        // not under these anchors
      }
    }
    result.checks.chain_trusted = chainsTo.built_in || chainsTo.psc;
    if (!result.checks.chain_trusted) {
      problems.push("the authority's certificate does not chain to a root this service recognizes");
    }
    const provider = recognizedAuthority(deps, { tsaCertificateDer, chainsToPsc: chainsTo.psc, chainsToServiceRoot: chainsTo.built_in });
    result.checks.authority_recognized = provider !== null;
    if (provider) {
      result.provider = provider;
      result.provider_description = PROVIDER_DESCRIPTION[provider];
    } else {
      problems.push(
        `the token is signed by ${result.tsa ?? 'an unnamed authority'}, neither the service's own time-stamp authority nor the configured PSC`,
      );
    }
  }
  result.valid = Object.values(result.checks).every(Boolean);
  result.problem = problems[0] ?? null;
  return result;
}
