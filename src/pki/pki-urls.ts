// The public URLs of the service PKI: certificates point at them (AIA, CRL distribution points),
// so they are fixed by the service's public origin and must match the HTTP routes.

/** The public URLs the certificates point at; the HTTP routes serve exactly these. */
export interface PkiUrls {
  /** Root certificate, PEM (GET /pki/ca.pem). */
  rootPem: string;
  /** Issuing CA and root, PEM (GET /pki/chain.pem). */
  chainPem: string;
  /** Issuing CA certificate, DER, application/pkix-cert: the caIssuers target (RFC 5280 §4.2.2.1). */
  issuingCer: string;
  /** OCSP responder for certificates of the issuing CA (RFC 6960, POST and GET). */
  ocsp: string;
  /** CRL of the issuing CA, DER (createCrl issuer 'issuing'). */
  crl: string;
  /** CRL of the root, covering the issuing CA (createCrl issuer 'root'). */
  rootCrl: string;
  /** RFC 3161 time-stamp authority (POST). */
  tsa: string;
}

export function pkiUrls(baseUrl: string): PkiUrls {
  const base = baseUrl.replace(/\/+$/, '');
  return {
    rootPem: `${base}/pki/ca.pem`,
    chainPem: `${base}/pki/chain.pem`,
    issuingCer: `${base}/pki/issuing.cer`,
    ocsp: `${base}/pki/ocsp`,
    crl: `${base}/pki/crl`,
    rootCrl: `${base}/pki/root-crl`,
    tsa: `${base}/tsa`,
  };
}
