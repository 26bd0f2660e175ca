// A SAT signer on a server that takes the e.firma signs in two steps (prepare, finish), never with
// the drawn or typed signature of POST .../sign: the signature must carry the signer's own
// certificate, which only their browser can use. Said as such, so an integrator who posts to /sign
// learns which requests to make instead of reading "not available".
import type { Deps } from '../../deps.js';
import { AppError } from '../../errors.js';

/**
 * SAT_EFIRMA_REQUIRED for a SAT signer where the operator installed the SAT's certificates;
 * CERTIFICATE_REQUIRED for a CERT signer where the operator installed a CERT trust list.
 */
export function refuseEfirmaSignerOnSign(deps: Pick<Deps, 'config'>, authority: string, link: 'document' | 'set'): void {
  const base = link === 'set' ? '/sign/api/set/{token}' : '/sign/api/{token}';
  // A set link's document_ticket names each document in turn (one prepare and finish per document).
  if (authority === 'CERT' && deps.config.cert.trustedDer.length > 0) {
    throw new AppError(
      'CERTIFICATE_REQUIRED',
      `this signer signs with their own certificate: POST ${base}/certificate/prepare with the certificate, sign the returned signed_attributes with the key, then POST ${base}/certificate/finish with the signature value`,
      { authority: 'CERT', prepare: `${base}/certificate/prepare`, finish: `${base}/certificate/finish` },
    );
  }
  if (authority === 'CSC' && deps.config.csc.providers.length > 0) {
    throw new AppError(
      'CERTIFICATE_REQUIRED',
      `this signer signs with a credential at their trust service provider: POST ${base}/csc/authorize and send them to the answered authorize_url`,
      { authority: 'CSC', authorize: `${base}/csc/authorize` },
    );
  }
  if (authority !== 'SAT' || deps.config.sat.trustedDer.length === 0) {
    return;
  }
  throw new AppError(
    'SAT_EFIRMA_REQUIRED',
    `this signer signs with their SAT e.firma: POST ${base}/sat/prepare with the certificate, sign the returned signed_attributes with the key, then POST ${base}/sat/finish with the signature value`,
    { authority: 'SAT', prepare: `${base}/sat/prepare`, finish: `${base}/sat/finish` },
  );
}
