// The universal rendition's three revisions over a completed original (PAdES B-LTA, EN 319 142-1
// §5.4): (1) a DSS with the validation data of every signature and signature time stamp; (2) a
// document time stamp over all of it; (3) a DSS with the validation data of that time stamp's own
// chain. A renewal (scope `renewal`) makes the same three over the last document time stamp only:
// fresh data for it before its TSA certificate ends, and a new time stamp over everything.
// Every step keeps the bytes before it as an exact prefix (checked in pdf/).
import { X509Certificate } from 'node:crypto';
import type { Deps } from '../deps.js';
import { appendArchiveTimestamp } from '../../pdf/archive-timestamp.js';
import { appendDss } from '../../pdf/dss-revision.js';
import { openPdf } from '../../pdf/open-pdf.js';
import { signedFieldsOf } from '../../pdf/signed-fields.js';
import type { VerifiedTimeStamp } from '../../pki/index.js';
import { splitTrust } from '../../pki/sat-certificate.js';
import { timestampSource } from '../signing/timestamp-source.js';
import { gatherValidationData } from './gather-validation-data.js';
import { revocationSource, ValidationDataMissing } from './revocation-source.js';

/** The PAdES level the rendition reaches. */
export const UNIVERSAL_LEVEL = 'PAdES-B-LTA';

export interface MadeUniversal {
  pdf: Uint8Array;
  /** The new document time stamp. */
  token: VerifiedTimeStamp;
  /** When the certificate of that time stamp's TSA ends: the renewal is due before. */
  tsaNotAfter: Date;
  /** How many signatures and time stamps the first DSS covered. */
  covered: number;
  /** Revocation data of signers' own CAs (the SAT's) that could not be had; empty for the service's own. */
  gaps: string[];
}

/** The CAs of signers who sign with their own certificate (the SAT's e.firma), as the operator configured them. */
export interface SignersCa {
  trustedDer: readonly Uint8Array[];
  /** Their OCSP responder, for certificates that name none. */
  ocspUrl?: string;
}

export async function makeUniversal(
  deps: Pick<Deps, 'pki' | 'externalTsa' | 'fetchPkiData' | 'clock'>,
  o: {
    pdf: Uint8Array;
    scope: 'initial' | 'renewal';
    /** The CAs of signers' own certificates: the SAT's, the CERT trust list's. */
    signersCa?: readonly SignersCa[];
    /** OCSP answers obtained at signing time (the SAT's), used when no fresh one can be had. */
    storedOcspDer?: readonly Buffer[];
  },
): Promise<MadeUniversal> {
  const tsa = timestampSource(deps);
  const pki = deps.pki.pki;
  const lists = o.signersCa ?? [];
  const signersCa = splitTrust(lists.flatMap((l) => l.trustedDer));
  const known = [pki.issuing.certificateDer, ...pki.chainDer, ...signersCa.intermediates];
  // Our signer certificates chain to our root; document time stamps may chain to the external TSA's;
  // e.firma signatures to the SAT's roots.
  const trustedRootsDer = [...tsa.trustedRootsDer, ...signersCa.anchors];
  // A list's own responder answers for the certificates its CAs issued that name none.
  const ocspUrlOf = (issuer: Buffer) => lists.find((l) => l.trustedDer.some((c) => issuer.equals(c)))?.ocspUrl;
  const source = revocationSource(deps, {
    ocspUrlFor: (_cert, issuer) => ocspUrlOf(issuer),
    storedOcspDer: o.storedOcspDer,
  });
  const gaps: string[] = [];
  const gather = (targets: { signature: Uint8Array; cms: Uint8Array }[]) =>
    gatherValidationData({ targets, trustedRootsDer, knownCertificatesDer: known, source, bestEffortRootsDer: signersCa.anchors, gaps });

  // One model of the file, reloaded after each revision (three parses of it in all).
  const doc = await openPdf(o.pdf);
  const fields = signedFieldsOf(doc.pdf);
  const stamps = fields.filter((f) => f.kind === 'document_timestamp');
  const targets = o.scope === 'initial' ? fields : stamps.slice(-1);
  if (targets.length === 0) {
    throw new ValidationDataMissing(
      o.scope === 'initial' ? 'the document has no signature' : 'the document has no document time stamp to renew',
    );
  }
  await appendDss(doc, {
    vri: await gather(targets.map((f) => ({ signature: f.contents, cms: f.contents }))),
    at: deps.clock.now(),
  });
  const fieldName = `Sello-Archive-${stamps.length + 1}`;
  const token = await appendArchiveTimestamp(doc, { timestamp: tsa.timestamp, trustedRootsDer, untrustedDer: known, fieldName });
  const own = signedFieldsOf(doc.pdf).find((f) => f.fieldName === fieldName);
  if (!own) {
    throw new ValidationDataMissing('the document time stamp just added cannot be read back');
  }
  await appendDss(doc, { vri: await gather([{ signature: own.contents, cms: token.tokenDer }]), at: deps.clock.now() }, { reload: false });
  return {
    pdf: doc.bytes,
    token,
    tsaNotAfter: new Date(new X509Certificate(token.tsaCertificateDer).validTo),
    covered: targets.length,
    gaps: [...new Set(gaps)],
  };
}
