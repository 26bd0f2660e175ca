// A document time stamp (PDF 2.0 §12.8.5; ETSI EN 319 142-1 §5.4.3: /Type /DocTimeStamp,
// /SubFilter /ETSI.RFC3161) as one incremental revision over the whole file so far: the archive
// time stamp of PAdES B-LTA, first made after the validation data of the signatures, then again at
// each renewal.
//
// @libpdf/core's addTimestamp() places the field, computes /ByteRange and patches /Contents. What
// it does not, and is done here: it embeds whatever its TimestampAuthority returns, unchecked, so
// the authority below asks with a fresh nonce and checks the reply with pki/'s
// verifyTimeStampReply (imprint, nonce, signature, TSA chain to a trusted root) before the library
// sees a token; and it is not asked to gather validation data (longTermValidation), for the
// reasons in dss-revision.ts. The prefix property is checked afterwards, as everywhere in pdf/.
import { PlaceholderError, type TimestampAuthority } from '@libpdf/core';
import { isStrictPrefix, type OpenPdf, requireIncremental } from './open-pdf.js';
import { PdfSignError } from './sign-errors.js';
import { PkiError, verifyTimeStampReply, type VerifiedTimeStamp } from '../pki/index.js';
import { randomNonce } from '../pki/tsa-request.js';

export interface ArchiveTimestampOptions {
  /** RFC 3161: (SHA-256 of the covered bytes, nonce as positive INTEGER bytes) → DER TimeStampResp. */
  timestamp: (imprint: Uint8Array, nonce: Uint8Array) => Promise<Uint8Array>;
  /** Roots the TSA's certificate must chain to. */
  trustedRootsDer: Uint8Array[];
  /** Intermediates for that chain, when the token may not carry them. */
  untrustedDer?: Uint8Array[];
  /** Name of the new signature field (no period). */
  fieldName: string;
}

/**
 * Appends a document time stamp over all of `doc.bytes`; `doc` then holds the new bytes and their
 * model. Returns the verified token embedded. Throws PdfSignError.
 */
export async function appendArchiveTimestamp(doc: OpenPdf, opts: ArchiveTimestampOptions): Promise<VerifiedTimeStamp> {
  // The token with the TSA's certificates is some 5 KiB; an external TSA may send a longer chain.
  for (const estimatedSize of [16_384, 65_536]) {
    try {
      return await once(doc, opts, estimatedSize);
    } catch (err) {
      if (err instanceof PlaceholderError && estimatedSize < 65_536) {
        // The library's model is left half-way: start again from the bytes it came from.
        await doc.pdf.reload(doc.bytes);
        continue;
      }
      if (err instanceof PdfSignError) {
        throw err;
      }
      if (err instanceof PkiError) {
        throw new PdfSignError('TIMESTAMP_INVALID', `document time-stamp reply refused: ${err.message}`);
      }
      throw new PdfSignError('SIGNING_FAILED', `the document time stamp could not be added: ${(err as Error).message}`);
    }
  }
  throw new PdfSignError('SIGNING_FAILED', 'the document time-stamp token does not fit');
}

async function once(doc: OpenPdf, opts: ArchiveTimestampOptions, estimatedSize: number): Promise<VerifiedTimeStamp> {
  requireIncremental(doc);
  let verified: VerifiedTimeStamp | undefined;
  const authority: TimestampAuthority = {
    async timestamp(digest, algorithm) {
      if (algorithm !== 'SHA-256') {
        throw new PdfSignError('SIGNING_FAILED', `unexpected digest algorithm ${algorithm}`);
      }
      const nonce = randomNonce();
      let reply: Uint8Array;
      try {
        reply = await opts.timestamp(digest, nonce);
      } catch (err) {
        throw new PdfSignError('SIGNING_FAILED', `the time-stamp authority did not answer: ${(err as Error).message}`);
      }
      verified = await verifyTimeStampReply(reply, {
        expectedImprint: digest,
        expectedNonce: nonce,
        trustedRootsDer: opts.trustedRootsDer,
        untrustedDer: opts.untrustedDer,
      });
      return verified.tokenDer;
    },
  };
  // addTimestamp() reloads doc.pdf from the bytes it returns.
  const { bytes: out } = await doc.pdf.addTimestamp({
    timestampAuthority: authority,
    fieldName: opts.fieldName,
    digestAlgorithm: 'SHA-256',
    estimatedSize,
  });
  if (!verified || !isStrictPrefix(doc.bytes, out)) {
    throw new PdfSignError('NOT_INCREMENTAL', 'the PDF library did not append the document time stamp; refusing a rewrite');
  }
  doc.bytes = out;
  return verified;
}
