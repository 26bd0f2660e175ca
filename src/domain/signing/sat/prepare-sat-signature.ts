// POST /sign/api/{token}/sat/prepare: the first step of a signature with the signer's own SAT
// e.firma. The certificate is checked (check-sat-certificate.ts), the revision with the signature's
// appearance in every box of the signer is written with an empty /Contents, and the CMS signed
// attributes are returned for the browser to sign with the key it keeps. What finish needs is
// stored (a row and a blob) before the answer, so a retry or a restart between the steps loses nothing.
import { endorsementOfSigner } from '../../../store/endorsements-repo.js';
import { endorsementHeading, endorsementReason, endorserLine } from '../../endorsements/endorsement-legend.js';
import { AppError, invalid } from '../../errors.js';
import { decodeBase64 } from '../../base64.js';
import type { Deps } from '../../deps.js';
import { prepareExternalSignature } from '../../../pdf/external-signature.js';
import { certificatesToPem } from '../../../pki/index.js';
import { countOpenPreparations, dropExpiredPreparations, insertPreparation } from '../../../store/sat-repo.js';
import { stickersOf } from '../../../store/signing-repo.js';
import type { SatPrepared } from '../../../schemas/sat-signing.js';
import { signingError } from '../sign-document.js';
import { openSession, requireSignable, requireTurn, type SigningSession } from '../signing-session.js';
import { legendLanguage } from '../workflow-language.js';
import { checkSatCertificate } from './check-sat-certificate.js';
import { requireIdentityVerified } from '../../identity/require-identity.js';

const MAX_CERTIFICATE_BYTES = 16 * 1024;
/** Each preparation stores a whole revision: a link holder must not fill the disk with them. */
const MAX_OPEN_PREPARATIONS = 5;

export interface SatPrepareInput {
  token: string;
  certificate: Buffer;
  language?: 'es' | 'en';
}

/** `{certificate, consent: true, language?}`. */
export function parseSatPrepareBody(body: Record<string, unknown>): Omit<SatPrepareInput, 'token'> {
  if (body.consent !== true) {
    throw invalid('consent', 'must be true: the signer agrees to sign electronically');
  }
  if (typeof body.certificate !== 'string' || body.certificate.length === 0) {
    throw invalid('certificate', 'required: the e.firma certificate (.cer) in Base64');
  }
  const certificate = decodeBase64(body.certificate, { field: 'certificate', maxBytes: MAX_CERTIFICATE_BYTES });
  const language = body.language;
  if (language !== undefined && language !== 'es' && language !== 'en') {
    throw invalid('language', 'expected "es" or "en"');
  }
  return { certificate, language };
}

export function requireSatSigner(s: SigningSession): void {
  if (s.signer.authority !== 'SAT') {
    throw new AppError('INVALID_STATE', `the e.firma is for signers of the SAT authority; this signer's is ${s.signer.authority}`);
  }
}

export async function prepareSatSignature(deps: Deps, input: SatPrepareInput): Promise<SatPrepared> {
  // Checked before the document is locked: the SAT's OCSP responder may take seconds to answer.
  const first = await openSession(deps.db, input.token);
  requireSignable(first);
  requireIdentityVerified(first);
  requireSatSigner(first);
  const checked = await checkSatCertificate(deps, input.certificate, first.signer.data);
  const { cert } = checked;
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
    const language = legendLanguage(s.document.workflow, input.language, deps.config.defaultLanguage);
    const current = await deps.blobs.get(s.document.original_sha256);
    const endorsement = s.signer.role === 'endorser' ? await endorsementOfSigner(trx, s.signer.id) : undefined;
    let prepared: Awaited<ReturnType<typeof prepareExternalSignature>>;
    try {
      prepared = await prepareExternalSignature({
        pdf: current,
        fieldName: `Sello-${s.signer.signer_id}`,
        boxes: boxes.map((b) => ({ page: b.page, rect: { lx: b.lx, ly: b.ly, tx: b.tx, ty: b.ty } })),
        appearance: {
          signerName: endorsement ? endorserLine(cert.name, language) : cert.name,
          heading: endorsement ? endorsementHeading(endorsement, language) : undefined,
          signedAt: now,
          authorityLabel: `${language === 'en' ? 'SAT e.firma' : 'e.firma SAT'}: ${cert.rfc}`,
          locale: language,
        },
        certificateDer: input.certificate,
        chainDer: checked.chainDer,
        now: () => now,
        reason: endorsement
          ? endorsementReason(endorsement, language)
          : language === 'en'
            ? 'Advanced electronic signature (SAT e.firma)'
            : 'Firma electrónica avanzada (e.firma SAT)',
      });
    } catch (err) {
      throw signingError(err);
    }
    const expiresAt = new Date(now.getTime() + deps.config.sat.prepareMinutes * 60_000);
    const preparedSha256 = await deps.blobs.put(prepared.pdf);
    await dropExpiredPreparations(trx, s.signer.id, now);
    const id = await insertPreparation(trx, {
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
      rfc: cert.rfc,
      certificate_number: cert.certificateNumber,
      ocsp_status: checked.status,
      ocsp_response: checked.ocspResponseDer ?? null,
      signed_at: prepared.signedAt,
      language,
      created_at: now,
      expires_at: expiresAt,
    });
    return {
      preparation_id: id,
      signed_attributes: prepared.signedAttributes.toString('base64'),
      signature_algorithm: 'RSASSA-PKCS1-v1_5' as const,
      hash: 'SHA-256' as const,
      expires_at: expiresAt.toISOString(),
      certificate: {
        name: cert.name,
        rfc: cert.rfc,
        curp: cert.curp,
        serial: cert.serialHex,
        certificate_number: cert.certificateNumber,
        valid_from: cert.notBefore.toISOString(),
        valid_to: cert.notAfter.toISOString(),
        status: checked.status,
      },
    };
  });
}
