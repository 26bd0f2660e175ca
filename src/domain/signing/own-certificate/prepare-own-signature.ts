// The first step of a signature with the signer's own certificate (an SAT e.firma, a CERT
// certificate). The certificate is checked by its authority, the revision with the signature's
// appearance in every box of the signer is written with an empty /Contents, and the CMS signed
// attributes are returned for the browser to sign with the key it keeps. What finish needs is stored
// (a row and a blob) before the answer, so a retry or a restart between the steps loses nothing.
import type { Transaction } from 'kysely';
import { endorsementOfSigner } from '../../../store/endorsements-repo.js';
import { endorsementHeading, endorsementReason, endorserLine } from '../../endorsements/endorsement-legend.js';
import { AppError } from '../../errors.js';
import { decodeBase64 } from '../../base64.js';
import type { Deps } from '../../deps.js';
import { prepareExternalSignature } from '../../../pdf/external-signature.js';
import { certificatesToPem } from '../../../pki/index.js';
import type { ExternalScheme } from '../../../pki/cms/index.js';
import { countOpenPreparations, dropExpiredPreparations, insertPreparation } from '../../../store/sat-repo.js';
import { stickersOf } from '../../../store/signing-repo.js';
import type { Database } from '../../../store/schema.js';
import { retryTransientConflict } from '../../../store/transient-conflict.js';
import { signingError } from '../sign-document.js';
import { openSession, requireSignable, requireTurn, type SigningSession } from '../signing-session.js';
import { legendLanguage } from '../workflow-language.js';
import { requireIdentityVerified } from '../../identity/require-identity.js';
import type { CheckedOwnCertificate, OwnCertificateAuthority } from './authority.js';
import { putHeldBlob } from '../../../store/blob-fence.js';
import { fieldsOfSigner } from '../../../store/signer-fields-repo.js';
import { accountTimeZone } from '../../../store/workflow-repo.js';
import type { FieldValues } from '../../../schemas/signer-fields.js';
import type { SignerFieldFill } from '../../../pdf/signer-fields.js';
import { checkFieldValues, refuseUnknownFields } from '../signer-fields.js';

const MAX_CERTIFICATE_BYTES = 16 * 1024;
/** Each preparation stores a whole revision: a link holder must not fill the disk with them. */
const MAX_OPEN_PREPARATIONS = 5;

export interface OwnPrepareInput {
  token: string;
  certificate: Buffer;
  language?: 'es' | 'en';
  /** The values of the signer's fields: written into the prepared revision, recorded when it is finished. */
  fieldValues?: FieldValues;
  /** The caller refused keys naming no field of this signer already (a set checks them across its documents). */
  unknownFieldsChecked?: boolean;
}

/** What prepare stored, for the authority's answer. */
export interface OwnPrepared<C> {
  id: string;
  signedAttributes: Buffer;
  /** How the signer signs signedAttributes (their key's scheme and hash). */
  scheme: ExternalScheme;
  checked: C;
  expiresAt: Date;
}

type Trx = Transaction<Database>;

/** The certificate's DER from the body's Base64 (the schema checked it is a non-empty string). */
export function readCertificate(base64: string): Buffer {
  return decodeBase64(base64, { field: 'certificate', maxBytes: MAX_CERTIFICATE_BYTES });
}

/** INVALID_STATE unless the link's signer is of this authority. */
export function requireAuthority(s: SigningSession, a: Pick<OwnCertificateAuthority<CheckedOwnCertificate>, 'authority' | 'noun'>): void {
  if (s.signer.authority !== a.authority) {
    throw new AppError(
      'INVALID_STATE',
      `the ${a.noun} is for signers of the ${a.authority} authority; this signer's is ${s.signer.authority}`,
    );
  }
}

/**
 * Prepares with a certificate already read. Run again when PostgreSQL rolled the transaction back
 * for a concurrent one (transient-conflict.ts).
 */
export async function prepareOwnSignature<C extends CheckedOwnCertificate>(
  deps: Deps,
  input: OwnPrepareInput,
  authority: OwnCertificateAuthority<C>,
): Promise<OwnPrepared<C>> {
  return retryTransientConflict(() => prepareOnce(deps, input, authority));
}

async function prepareOnce<C extends CheckedOwnCertificate>(
  deps: Deps,
  input: OwnPrepareInput,
  authority: OwnCertificateAuthority<C>,
): Promise<OwnPrepared<C>> {
  // Checked before the document is locked: a CA's OCSP responder may take seconds to answer.
  const first = await openSession(deps.db, input.token);
  requireSignable(first);
  requireIdentityVerified(first);
  requireAuthority(first, authority);
  const checked = await authority.check(deps, input.certificate, first.signer);
  return deps.db.transaction().execute(async (trx) => {
    const s = await openSession(trx, input.token, true);
    requireSignable(s);
    await requireTurn(trx, s);
    const boxes = await stickersOf(trx, s.signer.id);
    if (boxes.length === 0) {
      throw new AppError('DOCUMENT_NOT_SIGNABLE', 'this signer has no signature box on the document');
    }
    const now = deps.clock.now();
    if ((await countOpenPreparations(trx, s.signer.id, now)) >= MAX_OPEN_PREPARATIONS) {
      throw new AppError(
        'RATE_LIMITED',
        `${MAX_OPEN_PREPARATIONS} signatures are prepared and not finished: finish one, or wait for them to expire`,
      );
    }
    const fields = await fieldsOfSigner(trx, s.signer.id);
    if (!input.unknownFieldsChecked) {
      refuseUnknownFields(input.fieldValues, new Set(fields.map((f) => f.field_id)));
    }
    // The account's time zone dates a field left empty; a signer without fields (most) needs no read.
    const timeZone = fields.length > 0 ? await accountTimeZone(trx, s.document.account_id) : 'UTC';
    const filled = checkFieldValues(fields, input.fieldValues, { now, timeZone });
    const language = legendLanguage(s.document.workflow, input.language, deps.config.defaultLanguage);
    const prepared = await prepareRevision(trx, deps, {
      s,
      boxes,
      checked,
      authority,
      certificate: input.certificate,
      language,
      now,
      fills: filled.fills,
    });
    const expiresAt = new Date(now.getTime() + deps.config.sat.prepareMinutes * 60_000);
    const preparedSha256 = await putHeldBlob(trx, deps.blobs, prepared.pdf);
    await dropExpiredPreparations(trx, s.signer.id, now);
    const id = await insertPreparation(trx, {
      authority: authority.authority,
      csc_provider: authority.provider ?? null,
      signer_row_id: s.signer.id,
      document_id: s.document.id,
      base_sha256: s.document.original_sha256,
      prepared_sha256: preparedSha256,
      byte_range: prepared.byteRange,
      contents_start: prepared.contentsStart,
      contents_end: prepared.contentsEnd,
      signed_attributes: prepared.signedAttributes,
      certificate: input.certificate,
      chain_pem: certificatesToPem(checked.chainDer),
      rfc: checked.rfc,
      certificate_number: checked.certificateNumber,
      ocsp_status: checked.status,
      ocsp_response: checked.ocspResponseDer ?? null,
      signed_at: prepared.signedAt,
      language,
      created_at: now,
      expires_at: expiresAt,
      field_values: fields.length > 0 ? JSON.stringify(filled.values) : null,
    });
    return { id, signedAttributes: prepared.signedAttributes, scheme: prepared.scheme, checked, expiresAt };
  });
}

/** The revision with the signature's appearance in every box and an empty /Contents. */
async function prepareRevision<C extends CheckedOwnCertificate>(
  trx: Trx,
  deps: Deps,
  o: {
    s: SigningSession;
    boxes: Awaited<ReturnType<typeof stickersOf>>;
    checked: C;
    authority: OwnCertificateAuthority<C>;
    certificate: Buffer;
    language: 'es' | 'en';
    now: Date;
    fills: SignerFieldFill[];
  },
): Promise<Awaited<ReturnType<typeof prepareExternalSignature>>> {
  const { s, checked, language, now } = o;
  const legend = o.authority.legend(checked, language);
  const current = await deps.blobs.get(s.document.original_sha256);
  const endorsement = s.signer.role === 'endorser' ? await endorsementOfSigner(trx, s.signer.id) : undefined;
  try {
    return await prepareExternalSignature({
      pdf: current,
      fieldName: `Sello-${s.signer.signer_id}`,
      boxes: o.boxes.map((b) => ({ page: b.page, rect: { lx: b.lx, ly: b.ly, tx: b.tx, ty: b.ty } })),
      appearance: {
        signerName: endorsement ? endorserLine(checked.name, language) : checked.name,
        heading: endorsement ? endorsementHeading(endorsement, language) : undefined,
        signedAt: now,
        authorityLabel: legend.authorityLabel,
        locale: language,
      },
      certificateDer: o.certificate,
      chainDer: checked.chainDer,
      now: () => now,
      reason: endorsement ? endorsementReason(endorsement, language) : legend.reason,
      fieldFills: o.fills,
    });
  } catch (err) {
    throw signingError(err);
  }
}
