// The second step of a signature with the signer's own certificate. The browser sends only the
// signature value it made with the signer's key over the signed attributes prepare returned. It is
// verified against the certificate; the CMS is assembled with the certificate chain and the
// signature time stamp, written into the prepared revision, which must still extend the document's
// current revision; and the signature concludes as every other does (conclude-signature.ts). A
// preparation belongs to one signer, is used once and expires.
import { AppError } from '../../errors.js';
import { decodeBase64 } from '../../base64.js';
import type { Deps } from '../../deps.js';
import { finishExternalSignature } from '../../../pdf/external-signature.js';
import { PdfSignError } from '../../../pdf/sign-pdf.js';
import { cachedCertificate, normalizeSerialHex, pemCertificates } from '../../../pki/index.js';
import { lockPreparation, markPreparationFinished } from '../../../store/sat-repo.js';
import type { SignResult } from '../../../schemas/signing.js';
import { retryTransientConflict } from '../../../store/transient-conflict.js';
import { concludeSignature } from '../conclude-signature.js';
import { recordFieldValues } from '../../../store/signer-fields-repo.js';
import { signingError } from '../sign-document.js';
import { openSession, requireSignable, requireTurn } from '../signing-session.js';
import { timestampSource } from '../timestamp-source.js';
import { requireIdentityVerified } from '../../identity/require-identity.js';
import type { CheckedOwnCertificate, OwnCertificateAuthority } from './authority.js';
import { requireAuthority } from './prepare-own-signature.js';
import { putHeldBlob } from '../../../store/blob-fence.js';

export interface OwnFinishInput {
  token: string;
  preparationId: string;
  signature: Buffer;
  ip?: string;
}

/** The signature value's bytes, from the body's Base64 (the schema checked the preparation_id). */
export function readSignatureValue(base64: string): Buffer {
  return decodeBase64(base64, { field: 'signature', maxBytes: 2048 });
}

/**
 * Finishes with a signature value already read. Run again when PostgreSQL rolled the transaction
 * back for a concurrent one (transient-conflict.ts).
 */
export async function finishOwnSignature<C extends CheckedOwnCertificate>(
  deps: Deps,
  input: OwnFinishInput,
  authority: OwnCertificateAuthority<C>,
): Promise<SignResult> {
  return retryTransientConflict(() => finishOnce(deps, input, authority));
}

async function finishOnce<C extends CheckedOwnCertificate>(
  deps: Deps,
  input: OwnFinishInput,
  authority: OwnCertificateAuthority<C>,
): Promise<SignResult> {
  return deps.db.transaction().execute(async (trx) => {
    const s = await openSession(trx, input.token, true);
    requireAuthority(s, authority);
    // Another signer's preparation is as unknown as one never made.
    const p = await lockPreparation(trx, input.preparationId, s.signer.id);
    if (!p) {
      throw new AppError('PREPARATION_NOT_FOUND', 'no prepared signature with that id for this signer');
    }
    if (p.finished_at) {
      throw new AppError('PREPARATION_USED', 'this prepared signature was already used');
    }
    // Before expiry: a document rejected, expired or cancelled since cannot be signed by preparing
    // again, so DOCUMENT_NOT_SIGNABLE (details.status) says so rather than "prepare again".
    requireSignable(s);
    const now = deps.clock.now();
    if (now > p.expires_at) {
      throw new AppError('PREPARATION_EXPIRED', 'the prepared signature expired: sign again', { expires_at: p.expires_at.toISOString() });
    }
    requireIdentityVerified(s);
    await requireTurn(trx, s);
    if (p.base_sha256 !== s.document.original_sha256) {
      throw new AppError('PREPARATION_USED', 'the document was signed by someone else since this signature was prepared: sign again');
    }
    const chainDer = pemCertificates(p.chain_pem);
    // Still valid and trusted now, at the moment the time stamp will prove.
    authority.chain(deps, p.certificate, now);
    const [original, prepared] = await Promise.all([deps.blobs.get(p.base_sha256), deps.blobs.get(p.prepared_sha256)]);
    const tsa = timestampSource(deps);
    let signed: Buffer;
    try {
      signed = await finishExternalSignature({
        original,
        prepared: {
          pdf: prepared,
          byteRange: p.byte_range,
          contentsStart: p.contents_start,
          contentsEnd: p.contents_end,
          signedAttributes: p.signed_attributes,
        },
        certificateDer: p.certificate,
        chainDer,
        signatureValue: input.signature,
        timestamp: tsa.timestamp,
        timestampRootsDer: tsa.trustedRootsDer,
      });
    } catch (err) {
      if (err instanceof PdfSignError && err.problem === 'SIGNATURE_MISMATCH') {
        throw authority.signatureInvalid();
      }
      throw signingError(err);
    }
    const sha256 = await putHeldBlob(trx, deps.blobs, signed);
    await markPreparationFinished(trx, p.id, now);
    // The values the prepared revision holds become the signer's now that the signature covering them exists.
    if (Array.isArray(p.field_values)) {
      await recordFieldValues(trx, s.signer.id, p.field_values as { fieldId: string; value: string | boolean | null }[], now);
    }
    return concludeSignature(trx, deps, s, {
      sha256,
      now,
      certificateSerial: serialOf(p.certificate),
      type: authority.signatureType,
      ip: input.ip,
      certificateStatus: p.ocsp_status,
      historyDetails: { ...authority.historyDetails(p), certificate_status: p.ocsp_status },
    });
  });
}

/** The certificate's serial, canonical lowercase hex, as the report's verifier writes it. */
function serialOf(der: Buffer): string {
  return normalizeSerialHex(Buffer.from(cachedCertificate(der).pkijs.serialNumber.valueBlock.valueHexView).toString('hex') || '00');
}
