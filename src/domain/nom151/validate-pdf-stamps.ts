// POST /api/nom151/validate (multipart `file`): each stamp embedded in a PDF as a document time
// stamp, judged: a genuine token over the bytes it covers, from an authority this service
// recognizes, and what the document went through after it: the revisions added (changes-after.ts)
// and, from the signature verifier, whether any changed what the stamp covers. The file is read in
// the PDF jail. The stamp's structure (its /ByteRange and /Contents: one of each, the gap exactly
// the token, DER followed only by zeros, ending where its revision ends) and its CMS are judged by
// the signature verifier, the same one as the signature report; the token's authority and time by
// check-token.ts. A stamp is valid only when both say so.
import type { Deps } from '../deps.js';
import { pdfJailError, readPdf } from '../documents/read-pdf.js';
import type { PdfDocumentTimestamps } from '../../pdf/read-document-timestamps.js';
import type { PdfStampsValidation } from '../../schemas/stamps.js';
import { changesAfter } from './changes-after.js';
import { checkToken } from './check-token.js';
import { stampRoots } from './stamp-provider.js';
import { STRUCTURE_RULES } from '../../pdf/verify/byte-range-rules.js';
import type { VerifiedPdf, VerifiedSignature } from '../../pdf/verify/verify-pdf.js';
import type { DocumentTimestampEntry } from '../../pdf/read-document-timestamps.js';

type PdfStampValidation = PdfStampsValidation['stamps'][number];

export async function validatePdfStamps(deps: Deps, opts: { bytes: Buffer }): Promise<PdfStampsValidation> {
  await readPdf(deps.pdfJail, opts.bytes, deps.config.limits.pages);
  let read: PdfDocumentTimestamps;
  try {
    read = await deps.pdfJail.readDocumentTimestamps(opts.bytes);
  } catch (err) {
    throw pdfJailError(err);
  }
  // What changed after each stamp, judged by the signature verifier (the one the report uses): a
  // document time stamp is a signature over everything before it.
  let verified: VerifiedPdf;
  try {
    // Every authority the service recognizes: its own root, the operator's TSA and PSC roots.
    const roots = [deps.pki.pki.root.certificateDer, ...(deps.externalTsa?.trustedRootsDer ?? []), ...stampRoots(deps).psc];
    verified = await deps.pdfJail.verifyPdf(opts.bytes, { trustedRootsDer: roots, timestampRootsDer: roots });
  } catch (err) {
    throw pdfJailError(err);
  }
  const stamps: PdfStampValidation[] = [];
  for (const t of read.timestamps) {
    const judged = verified.signatures.find((v) => sameSignature(v, t));
    const modifications = (judged?.changes ?? [])
      .filter((c) => !c.allowed)
      .map((c) => ({ revision: c.revision, object: c.objectNumber, kind: c.kind, description: c.description }));
    const check = await checkToken(deps, t.token, t.imprint ?? new Uint8Array(32));
    const framed = !!judged && !STRUCTURE_RULES.has(judged.failedRule ?? '');
    const covers = framed && t.subFilter === 'ETSI.RFC3161';
    const verifierProblem = judged
      ? judged.validSignature
        ? null
        : `${judged.problem ?? 'the time stamp does not verify'} (${judged.failedRule})`
      : 'the signature verifier does not find this time stamp';
    stamps.push({
      ...check,
      valid: check.valid && covers && judged?.validSignature === true,
      problem:
        verifierProblem ??
        check.problem ??
        (covers ? null : 'the time stamp does not cover its whole revision (its /SubFilter is not that of a document time stamp)'),
      rule: judged?.failedRule ?? null,
      field_name: t.fieldName,
      revision: t.revision,
      covers_revision: covers,
      hash: t.imprint ? Buffer.from(t.imprint).toString('hex') : null,
      stamp: Buffer.from(t.token).toString('base64'),
      modified_after_stamp: judged?.modifiedAfterSigning ?? false,
      modifications,
      changes_after: changesAfter(t.revision, read.totalRevisions, read.revisions),
    });
  }
  return { valid: stamps.length > 0 && stamps.every((s) => s.valid), revisions: read.totalRevisions, stamps };
}

/** The verifier's signature for this time stamp: the same dictionary (by number, else by field) and range. */
function sameSignature(v: VerifiedSignature, t: DocumentTimestampEntry): boolean {
  const same =
    t.dictionaryNumber !== null ? v.dictionaryNumber === t.dictionaryNumber : v.dictionaryNumber === null && v.fieldName === t.fieldName;
  return same && v.byteRange.length === t.byteRange.length && v.byteRange.every((n, i) => Object.is(n, t.byteRange[i]));
}
