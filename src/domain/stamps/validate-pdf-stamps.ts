// POST /api/nom151/validate (multipart `file`): each stamp embedded in a PDF as a document time
// stamp, judged: a genuine token over the bytes it covers, from an authority this service
// recognizes, and what the document went through after it: the revisions added (changes-after.ts)
// and, from the signature verifier, whether any changed what the stamp covers. The file is read in
// the PDF jail; the tokens are judged here by the service's one verifier (check-token.ts).
import type { Deps } from '../deps.js';
import { pdfJailError, readPdf } from '../documents/read-pdf.js';
import type { PdfDocumentTimestamps } from '../../pdf/read-document-timestamps.js';
import type { PdfStampsValidation } from '../../schemas/stamps.js';
import { changesAfter } from './changes-after.js';
import { checkToken } from './check-token.js';
import { stampRoots } from './stamp-provider.js';
import type { VerifiedPdf } from '../../pdf/verify/verify-pdf.js';

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
    const judged = verified.signatures.find((v) => v.fieldName === t.fieldName);
    const modifications = (judged?.changes ?? [])
      .filter((c) => !c.allowed)
      .map((c) => ({ revision: c.revision, object: c.objectNumber, kind: c.kind, description: c.description }));
    const check = await checkToken(deps, t.token, t.imprint ?? new Uint8Array(32));
    const covers = t.coversRevision && t.subFilter === 'ETSI.RFC3161';
    stamps.push({
      ...check,
      valid: check.valid && covers,
      problem:
        check.problem ??
        (covers
          ? null
          : 'the time stamp does not cover its whole revision (its /ByteRange or /SubFilter is not that of a document time stamp)'),
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
