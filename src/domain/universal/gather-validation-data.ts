// The validation data one revision of the universal rendition embeds (EN 319 142-1 §5.4, B-LT):
// for every signature or time stamp given, the certification path of its signer and of each of its
// signature time stamps up to a trusted root; an OCSP response for every end-entity certificate
// (signer, TSA); a CRL of every CA on those paths (the issuing CA's covers the end entities a
// second way, the root's covers the issuing CA); the responder certificates the OCSP responses
// carry. Anything that cannot be had or does not check stops the build with the reason
// (ValidationDataMissing): the rendition is never produced at a lower level than it claims.
//
// One exception: paths that end at a root of the signers' own CAs (the SAT's e.firma, configured
// by the operator, whose CAs may publish no CRL and whose responder may be down). The service
// cannot make those CAs publish; it embeds whatever revocation data it obtained and records what
// it could not (`gaps`), and the verifier then reports those signatures at the level their data
// supports.
import { validateChain, hasOcspNoCheck, readCmsMaterial } from '../../pki/index.js';
import type { VriEntry } from '../../pdf/dss-revision.js';
import { type RevocationSource, ValidationDataMissing, subjectOf } from './revocation-source.js';

export interface ValidationTarget {
  /** The bytes its VRI entry is keyed by: the /Contents value as written. */
  signature: Uint8Array;
  /** The CMS itself (a signature's SignedData, or a document time stamp's token). */
  cms: Uint8Array;
}

export interface GatherOptions {
  targets: ValidationTarget[];
  trustedRootsDer: readonly Uint8Array[];
  /** Certificates that may complete a path (the service's CA chain). */
  knownCertificatesDer: readonly Uint8Array[];
  source: RevocationSource;
  /** Roots whose paths get best-effort revocation data (see above). */
  bestEffortRootsDer?: readonly Uint8Array[];
  /** Filled with what best-effort paths lack. */
  gaps?: string[];
}

/** One VRI entry per target; throws ValidationDataMissing naming what is missing. */
export async function gatherValidationData(o: GatherOptions): Promise<VriEntry[]> {
  const entries: VriEntry[] = [];
  for (const target of o.targets) {
    let material: ReturnType<typeof readCmsMaterial>;
    try {
      material = readCmsMaterial(target.cms);
    } catch (err) {
      throw new ValidationDataMissing(`a signature of the document cannot be read: ${(err as Error).message}`);
    }
    const entry: VriEntry = { signature: target.signature, certificatesDer: [], ocspsDer: [], crlsDer: [] };
    await coverPath(o, material.signerCertificateDer, material.certificatesDer, entry);
    for (const token of material.timeStampTokensDer) {
      let ts: ReturnType<typeof readCmsMaterial>;
      try {
        ts = readCmsMaterial(token);
      } catch (err) {
        throw new ValidationDataMissing(`a signature time stamp of the document cannot be read: ${(err as Error).message}`);
      }
      await coverPath(o, ts.signerCertificateDer, ts.certificatesDer, entry);
    }
    entries.push(entry);
  }
  return entries;
}

/** Adds the path of `leafDer` and its revocation data to `entry`. */
async function coverPath(o: GatherOptions, leafDer: Buffer, carried: Buffer[], entry: VriEntry): Promise<void> {
  // No validity instants: a path is built here, not judged. The report (and any validator) judges
  // it at the time each signature's time stamp proves; a renewal years later must still find it.
  const chain = validateChain(leafDer, {
    trustedRootsDer: o.trustedRootsDer,
    untrustedDer: [...carried, ...o.knownCertificatesDer],
    at: [],
  });
  if (!chain.ok) {
    throw new ValidationDataMissing(`no path from ${subjectOf(leafDer)} to a trusted root: ${chain.problem.message}`);
  }
  const path = chain.path;
  entry.certificatesDer.push(...path);
  const root = path[path.length - 1];
  const bestEffort = (o.bestEffortRootsDer ?? []).some((r) => Buffer.from(r).equals(root));
  for (let i = 0; i < path.length - 1; i++) {
    if (i === 0 && hasOcspNoCheck(path[i])) {
      continue; // RFC 6960 §4.2.2.2.1: trusted for the lifetime of its certificate
    }
    try {
      await coverCertificate(o, path[i], path[i + 1], i === 0, entry);
    } catch (err) {
      if (!bestEffort || !(err instanceof ValidationDataMissing)) {
        throw err;
      }
      o.gaps?.push(err.message);
    }
  }
}

/** The revocation data of one certificate of a path (`issuer` is the next one). */
async function coverCertificate(o: GatherOptions, cert: Buffer, issuer: Buffer, endEntity: boolean, entry: VriEntry): Promise<void> {
  const src = o.source;
  if (endEntity) {
    // End entity: OCSP whenever an answer can be asked for; a CRL of its issuer as well where
    // there is one. An OCSP responder that exists but fails is a failure, not a reason to settle.
    if (src.hasOcsp(cert, issuer)) {
      const { der, checked } = await src.ocsp(cert, issuer);
      entry.ocspsDer.push(der);
      entry.certificatesDer.push(...checked.responderCertificatesDer);
      await coverResponders(o, checked.responderCertificatesDer, issuer, entry);
      if (src.hasCrl(cert, issuer)) {
        entry.crlsDer.push(await src.crl(cert, issuer));
      }
    } else if (src.hasCrl(cert, issuer)) {
      entry.crlsDer.push(await src.crl(cert, issuer));
    } else {
      throw new ValidationDataMissing(`${subjectOf(cert)} names neither an OCSP responder nor a CRL`);
    }
    return;
  }
  // A CA: the CRL of its issuer; OCSP only where it names no distribution point.
  if (src.hasCrl(cert, issuer)) {
    entry.crlsDer.push(await src.crl(cert, issuer));
  } else if (src.hasOcsp(cert, issuer)) {
    const { der, checked } = await src.ocsp(cert, issuer);
    entry.ocspsDer.push(der);
    entry.certificatesDer.push(...checked.responderCertificatesDer);
  } else {
    throw new ValidationDataMissing(`${subjectOf(cert)} (a CA) names neither a CRL distribution point nor an OCSP responder`);
  }
}

/** A delegated responder without id-pkix-ocsp-nocheck needs its own status: its issuer's CRL. */
async function coverResponders(o: GatherOptions, responders: Buffer[], issuer: Buffer, entry: VriEntry): Promise<void> {
  for (const responder of responders) {
    if (responder.equals(issuer) || hasOcspNoCheck(responder)) {
      continue;
    }
    if (!o.source.hasCrl(responder, issuer)) {
      throw new ValidationDataMissing(`the OCSP responder ${subjectOf(responder)} has no id-pkix-ocsp-nocheck and no CRL`);
    }
    entry.crlsDer.push(await o.source.crl(responder, issuer));
  }
}
