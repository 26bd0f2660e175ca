// POST /verify: anyone may drop a PDF on the public verification page and learn whether each
// signature in it is valid, who signed, when, by which authority, and whether the document changed
// after. The same verifier as the signature report (checkFileSignatures); nothing is stored, and
// only what the file itself says is shown (no account's data: no signer is matched).
import { createHash } from 'node:crypto';
import type { Deps } from '../deps.js';
import { AppError } from '../errors.js';
import type { PublicFileVerification } from '../../schemas/verification.js';
import { checkFileSignatures, type SignatureReport } from './signature-report.js';

export type { PublicFileSignature, PublicFileVerification } from '../../schemas/verification.js';

export async function verifyPublicFile(deps: Deps, q: { bytes: Uint8Array }): Promise<PublicFileVerification> {
  if (q.bytes.length > deps.config.limits.documentBytes) {
    throw new AppError('DOCUMENT_TOO_LARGE', `the file is larger than ${Math.round(deps.config.limits.documentBytes / 1e6)} MB`);
  }
  const { report, facts } = await checkFileSignatures(deps, q.bytes, []);
  return {
    sha256: createHash('sha256').update(q.bytes).digest('hex'),
    document_integrity: report.documentIntegrity,
    signatures: report.firmas.map((f, i) => ({
      field: f.campoFirma,
      signer_name: f.certificados[0]?.commonName ?? '',
      issuer_name: f.certificados[0]?.issuerCommonName ?? '',
      signed_at: f.signDate,
      valid: f.validSignature,
      trusted: facts[i].trusted,
      modified_after_signing: f.modifiedAfterSigning,
      level: f.level,
      problem: f.problem?.message ?? '',
      rule: f.problem?.rule ?? '',
    })),
    attacks: [...new Set(report.attacks.map((a) => a.name))],
    changes: disallowedChanges(report.firmas).slice(0, 20),
  };
}

/** The changes some signature does not allow, each once (several signatures may name the same one). */
function disallowedChanges(firmas: SignatureReport['firmas']): PublicFileVerification['changes'] {
  const seen = new Map<string, PublicFileVerification['changes'][number]>();
  for (const c of firmas.flatMap((f) => f.changes.filter((x) => !x.allowed))) {
    const key = `${c.revision} ${c.object} ${c.description}`;
    if (!seen.has(key)) {
      seen.set(key, { revision: c.revision, object: c.object, kind: c.kind, category: c.category, description: c.description });
    }
  }
  return [...seen.values()];
}
