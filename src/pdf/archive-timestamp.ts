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
import { randomBytes } from 'node:crypto';
import { PDF, PlaceholderError, type TimestampAuthority } from '@libpdf/core';
import { PdfSignError } from './sign-errors.js';
import { PkiError, verifyTimeStampReply, type VerifiedTimeStamp } from '../pki/index.js';

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

export interface ArchiveTimestampResult {
  pdf: Uint8Array;
  /** The verified token that was embedded. */
  token: VerifiedTimeStamp;
}

const isPrefix = (prefix: Uint8Array, whole: Uint8Array) =>
  whole.length > prefix.length &&
  Buffer.from(prefix.buffer, prefix.byteOffset, prefix.length).equals(Buffer.from(whole.buffer, whole.byteOffset, prefix.length));

/** Appends a document time stamp over all of `bytes`. Throws PdfSignError. */
export async function appendArchiveTimestamp(bytes: Uint8Array, opts: ArchiveTimestampOptions): Promise<ArchiveTimestampResult> {
  // The token with the TSA's certificates is some 5 KiB; an external TSA may send a longer chain.
  for (const estimatedSize of [16_384, 65_536]) {
    try {
      return await once(bytes, opts, estimatedSize);
    } catch (err) {
      if (err instanceof PlaceholderError && estimatedSize < 65_536) {
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

async function once(bytes: Uint8Array, opts: ArchiveTimestampOptions, estimatedSize: number): Promise<ArchiveTimestampResult> {
  let pdf: PDF;
  try {
    pdf = await PDF.load(bytes);
  } catch (err) {
    throw new PdfSignError('SIGNING_FAILED', `the PDF cannot be read: ${(err as Error).message}`);
  }
  const blocker = pdf.canSaveIncrementally();
  if (blocker) {
    throw new PdfSignError('NOT_INCREMENTAL', `the PDF cannot take an incremental revision (${blocker})`);
  }
  let verified: VerifiedTimeStamp | undefined;
  const authority: TimestampAuthority = {
    async timestamp(digest, algorithm) {
      if (algorithm !== 'SHA-256') {
        throw new PdfSignError('SIGNING_FAILED', `unexpected digest algorithm ${algorithm}`);
      }
      // RFC 3161 §2.4.1: a fresh nonce; its first byte keeps the INTEGER positive and minimal.
      const nonce = randomBytes(16);
      nonce[0] = (nonce[0] % 0x7f) + 1;
      let reply: Uint8Array;
      try {
        reply = await opts.timestamp(digest, new Uint8Array(nonce));
      } catch (err) {
        throw new PdfSignError('SIGNING_FAILED', `the time-stamp authority did not answer: ${(err as Error).message}`);
      }
      verified = await verifyTimeStampReply(reply, {
        expectedImprint: digest,
        expectedNonce: new Uint8Array(nonce),
        trustedRootsDer: opts.trustedRootsDer,
        untrustedDer: opts.untrustedDer,
      });
      return verified.tokenDer;
    },
  };
  const { bytes: out } = await pdf.addTimestamp({
    timestampAuthority: authority,
    fieldName: opts.fieldName,
    digestAlgorithm: 'SHA-256',
    estimatedSize,
  });
  if (!verified || !isPrefix(bytes, out)) {
    throw new PdfSignError('NOT_INCREMENTAL', 'the PDF library did not append the document time stamp; refusing a rewrite');
  }
  return { pdf: out, token: verified };
}
