// POST /sign/api/{token}/sign: the signer signs. One PAdES B-T signature (a certificate issued for
// this signature, a time stamp from the service's TSA) as one incremental revision, its appearance
// in every box the signer owns. The document row is locked for the whole signature, so two signers
// signing at the same instant both end up in the file, one revision after the other.
import { decodeBase64 } from '../base64.js';
import { AppError } from '../errors.js';
import type { Deps } from '../deps.js';
import { PdfSignError, signPdf } from '../../pdf/sign-pdf.js';
import { stickersOf } from '../../store/signing-repo.js';
import { concludeSignature } from './conclude-signature.js';
import { legendLanguage } from './workflow-language.js';
import { issueOneTimeCertificate, takeSignerKey } from './one-time-certificate.js';
import { requireProof } from './one-time-code.js';
import { refuseEfirmaSignerOnSign } from './sat/efirma-required.js';
import { timestampSource } from './timestamp-source.js';
import { openSession, requireSignable, requireTurn } from './signing-session.js';
import type { SignBody, SignResult } from '../../schemas/signing.js';
import { retryTransientConflict } from '../../store/transient-conflict.js';
import { requireIdentityVerified } from '../identity/require-identity.js';
import { endorsementOfSigner } from '../../store/endorsements-repo.js';
import { endorsementHeading, endorsementReason, endorserLine } from '../endorsements/endorsement-legend.js';
import { putHeldBlob } from '../../store/blob-fence.js';
import { accountTimeZone } from '../../store/workflow-repo.js';
import { fieldsOfSigner, recordFieldValues } from '../../store/signer-fields-repo.js';
import type { FieldValues } from '../../schemas/signer-fields.js';
import { checkFieldValues, refuseUnknownFields } from './signer-fields.js';

export type SignatureInput = { type: 'drawn'; image: Buffer } | { type: 'typed'; text: string };

const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
const MAX_IMAGE_BYTES = 1024 * 1024;

/**
 * The signature drawn or typed, as the schema let it through (SignBody): a drawn one must decode to
 * a PNG of at most 1 MiB, a typed one be 1 to 100 characters once trimmed; both answer
 * SIGNATURE_INVALID, a code JSON Schema cannot give.
 */
export function readSignature(sig: SignBody['signature']): SignatureInput {
  if (sig.type === 'drawn') {
    if (!/^data:image\/png;base64,/i.test(sig.image)) {
      throw new AppError('SIGNATURE_INVALID', 'signature.image: expected a PNG as a data: URL (data:image/png;base64,...)');
    }
    const image = decodeBase64(sig.image, { field: 'signature.image', maxBytes: MAX_IMAGE_BYTES, invalidCode: 'SIGNATURE_INVALID' });
    if (!image.subarray(0, 8).equals(PNG)) {
      throw new AppError('SIGNATURE_INVALID', 'signature.image: not a PNG image');
    }
    return { type: 'drawn', image };
  }
  const text = sig.text.trim();
  if (text.length === 0 || [...text].length > 100) {
    throw new AppError('SIGNATURE_INVALID', 'signature.text: expected 1 to 100 characters');
  }
  return { type: 'typed', text };
}

/** POST /sign/api/{token}/sign: the body's signature read, then signed. */
export async function signDocument(deps: Deps, opts: { token: string; body: SignBody; ip?: string }): Promise<SignResult> {
  const signature = readSignature(opts.body.signature);
  return signWith(deps, { token: opts.token, signature, language: opts.body.language, ip: opts.ip, fieldValues: opts.body.field_values });
}

/**
 * Signs with a signature already read (a set signs each of its documents with one). Run again when
 * PostgreSQL rolled the transaction back for a concurrent one (transient-conflict.ts): another
 * signer or a job on the same document must cost a retry, never a 500.
 */
export async function signWith(deps: Deps, opts: SignOptions): Promise<SignResult> {
  return retryTransientConflict(() => signOnce(deps, opts));
}

export interface SignOptions {
  token: string;
  signature: SignatureInput;
  ip?: string;
  language?: 'es' | 'en';
  /** The values of the signer's fields (field_values), written into this signature's revision. */
  fieldValues?: FieldValues;
  /** The caller refused keys naming no field of this signer already (a set checks them across its documents). */
  unknownFieldsChecked?: boolean;
}

async function signOnce(deps: Deps, opts: SignOptions): Promise<SignResult> {
  const { db } = deps;
  // The signer's key is taken before the document is locked: with the pool empty (signatures
  // arriving faster than it refills), an RSA-2048 pair takes 150 ms or more to make, and the lock and
  // a database connection were held all that time, holding up the document's other signers and,
  // with many signatures waiting, every request and job needing a connection. A link that cannot
  // sign is refused first, so as not to spend a key on it; everything is checked again under the
  // lock, and a pair taken for a signature that is then refused is dropped, never used.
  const early = await openSession(db, opts.token);
  requireSignable(early);
  const key = await takeSignerKey(deps, db, early.document.id);
  return db.transaction().execute(async (trx) => {
    const s = await openSession(trx, opts.token, true);
    requireSignable(s);
    requireIdentityVerified(s);
    await requireTurn(trx, s);
    refuseEfirmaSignerOnSign(deps, s.signer.authority, 'document');
    await requireProof(deps, trx, s);
    const boxes = await stickersOf(trx, s.signer.id);
    if (boxes.length === 0) {
      throw new AppError('DOCUMENT_NOT_SIGNABLE', 'this signer has no signature box on the document');
    }
    const now = deps.clock.now();
    const fields = await fieldsOfSigner(trx, s.signer.id);
    if (!opts.unknownFieldsChecked) {
      refuseUnknownFields(opts.fieldValues, new Set(fields.map((f) => f.field_id)));
    }
    // The account's time zone dates a field left empty; a signer without fields (most) needs no read.
    const timeZone = fields.length > 0 ? await accountTimeZone(trx, s.document.account_id) : 'UTC';
    const filled = checkFieldValues(fields, opts.fieldValues, { now, timeZone });
    const displayName = s.signer.name ?? s.signer.email ?? s.signer.data;
    const cert = await issueOneTimeCertificate(deps, trx, {
      name: displayName,
      email: s.signer.email ?? undefined,
      phone: s.signer.authority === 'SMS' || s.signer.authority === 'WHATSAPP' ? s.signer.data : undefined,
      kind: 'signer',
      documentId: s.document.id,
      signerRowId: s.signer.id,
      now,
      key,
    });
    const language = legendLanguage(s.document.workflow, opts.language, deps.config.defaultLanguage);
    // An endorser's box states the endorsement above the usual legend (endorsement-legend.ts).
    const endorsement = s.signer.role === 'endorser' ? await endorsementOfSigner(trx, s.signer.id) : undefined;
    const tsa = timestampSource(deps);
    const current = await deps.blobs.get(s.document.original_sha256);
    let signed: Awaited<ReturnType<typeof signPdf>>;
    try {
      signed = await signPdf({
        pdf: current,
        fieldName: `Sello-${s.signer.signer_id}`,
        boxes: boxes.map((b) => ({ page: b.page, rect: { lx: b.lx, ly: b.ly, tx: b.tx, ty: b.ty } })),
        appearance: {
          image: opts.signature.type === 'drawn' ? opts.signature.image : undefined,
          typedSignature: opts.signature.type === 'typed' ? opts.signature.text : undefined,
          signerName: endorsement ? endorserLine(displayName, language) : displayName,
          heading: endorsement ? endorsementHeading(endorsement, language) : undefined,
          signedAt: now,
          authorityLabel: `${authorityLabel(s.signer.authority, language)}: ${s.signer.email ?? s.signer.data}`,
          locale: language,
        },
        signer: { certificateDer: cert.certificateDer, privateKey: cert.privateKey, chainDer: [cert.certificateDer, ...cert.chainDer] },
        timestamp: tsa.timestamp,
        trustedRootsDer: tsa.trustedRootsDer,
        now: () => now,
        reason: endorsement ? endorsementReason(endorsement, language) : language === 'en' ? 'Electronic signature' : 'Firma electrónica',
        fieldFills: filled.fills,
      });
    } catch (err) {
      throw signingError(err);
    }
    const sha256 = await putHeldBlob(trx, deps.blobs, signed.pdf);
    // Before the signature concludes: its events (the webhook payload) list the values.
    await recordFieldValues(trx, s.signer.id, filled.values, now);
    // The rows, events, history and workflow step every signature shares (conclude-signature.ts).
    return concludeSignature(trx, deps, s, { sha256, now, certificateSerial: cert.serialHex, type: opts.signature.type, ip: opts.ip });
  });
}

export function signingError(err: unknown): Error {
  if (!(err instanceof PdfSignError)) {
    return err as Error;
  }
  switch (err.problem) {
    case 'NOT_INCREMENTAL':
      return new AppError('PDF_NOT_SIGNABLE', `the PDF cannot take a signature without being rewritten: ${err.message}`);
    case 'BOX_INVALID':
      return new AppError('DOCUMENT_NOT_SIGNABLE', `a signature box cannot hold a signature: ${err.message}`);
    case 'CLOCK_BEHIND':
      return new AppError('CLOCK_BEHIND', `the signature could not be made: ${err.message}`, undefined, err);
    default:
      return new AppError('SIGNING_FAILED', `the signature could not be made: ${err.message}`, undefined, err);
  }
}

function authorityLabel(authority: string, language: 'es' | 'en'): string {
  if (authority === 'EMAIL') {
    return language === 'en' ? 'Email code' : 'Código por correo';
  }
  if (authority === 'SMS') {
    return language === 'en' ? 'SMS code' : 'Código por SMS';
  }
  if (authority === 'WHATSAPP') {
    return language === 'en' ? 'WhatsApp code' : 'Código por WhatsApp';
  }
  return language === 'en' ? 'Email link' : 'Enlace por correo';
}
