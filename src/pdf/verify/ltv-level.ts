// The PAdES baseline level a signature reaches (ETSI EN 319 142-1 §6): B-B a CAdES signature;
// B-T with a valid signature time stamp; B-LT when the document security store (DSS, §5.4.2)
// holds every certificate of its chain and revocation data (OCSP or CRL) for each of them but the
// trust anchor, so it can be validated after the certificates expire or their services close;
// B-LTA when, besides, a valid document time stamp covers that DSS. The revocation data is only
// counted when it is authentic: an OCSP response signed by the issuer or a responder it
// authorized, a CRL signed by the issuer. Pure: the DSS's bytes in, a level out.
import { X509Certificate, verify } from 'node:crypto';
import { type PDF, PdfArray, PdfDict, type PdfObject, PdfRef, PdfStream } from '@libpdf/core';
import * as pkijs from 'pkijs';
import { OID, RSA_AND_ECDSA_SIGNATURE_HASH, nodeHashName } from '../../pki/cms/oids.js';
import { toArrayBuffer, validateChain } from '../../pki/index.js';
import { objectAt } from './revision-diff.js';

export type PadesLevel = 'B-B' | 'B-T' | 'B-LT' | 'B-LTA';

export interface DssContents {
  certs: Buffer[];
  ocsps: Buffer[];
  crls: Buffer[];
}

/** The streams of the DSS's /Certs, /OCSPs and /CRLs as they stood in one revision. */
export function readDss(pdf: PDF): DssContents {
  const get = (o: PdfObject | undefined) => (o instanceof PdfRef ? (objectAt(pdf, o.objectNumber) ?? undefined) : o);
  const dss = get(pdf.context.info.trailer.get('Root'));
  const dict = dss instanceof PdfDict ? get(dss.get('DSS')) : undefined;
  const list = (key: string): Buffer[] => {
    const arr = dict instanceof PdfDict ? get(dict.get(key)) : undefined;
    if (!(arr instanceof PdfArray)) {
      return [];
    }
    return arr.toArray().flatMap((item) => {
      const s = get(item);
      try {
        return s instanceof PdfStream ? [Buffer.from(s.getDecodedData())] : [];
      } catch {
        return [];
      }
    });
  };
  return { certs: list('Certs'), ocsps: list('OCSPs'), crls: list('CRLs') };
}

function signedBy(tbs: Uint8Array, algorithmOid: string, signature: Uint8Array, signerDer: Uint8Array): boolean {
  const named = RSA_AND_ECDSA_SIGNATURE_HASH[algorithmOid];
  const hash = named && nodeHashName(named);
  try {
    return !!hash && verify(hash, tbs, new X509Certificate(signerDer).publicKey, signature);
  } catch {
    return false;
  }
}

/** An authentic OCSP response about `cert` in the DSS. */
function ocspCovers(ocspDer: Buffer, cert: pkijs.Certificate, issuerDer: Buffer): boolean {
  try {
    const response = pkijs.OCSPResponse.fromBER(toArrayBuffer(ocspDer));
    const bytes = response.responseBytes?.response.valueBlock.valueHexView;
    if (!bytes) {
      return false;
    }
    const basic = pkijs.BasicOCSPResponse.fromBER(toArrayBuffer(new Uint8Array(bytes)));
    const about = basic.tbsResponseData.responses.some((r) => r.certID.serialNumber.isEqual(cert.serialNumber));
    if (!about) {
      return false;
    }
    const issuer = new X509Certificate(issuerDer);
    const candidates = [issuerDer, ...(basic.certs ?? []).map((c) => Buffer.from(c.toSchema().toBER(false)))];
    return candidates.some((der) => {
      const x = new X509Certificate(der);
      // RFC 6960 §4.2.2.2: the issuer itself, or a responder it certified for OCSP signing.
      const authorized =
        x.raw.equals(issuer.raw) || (x.checkIssued(issuer) && x.verify(issuer.publicKey) && !!x.keyUsage?.includes(OID.kpOcspSigning));
      return (
        authorized &&
        signedBy(basic.tbsResponseData.tbsView, basic.signatureAlgorithm.algorithmId, basic.signature.valueBlock.valueHexView, der)
      );
    });
  } catch {
    return false;
  }
}

/** An authentic CRL of `cert`'s issuer in the DSS. */
function crlCovers(crlDer: Buffer, cert: pkijs.Certificate, issuerDer: Buffer): boolean {
  try {
    const crl = pkijs.CertificateRevocationList.fromBER(toArrayBuffer(crlDer));
    return (
      crl.issuer.isEqual(cert.issuer) &&
      signedBy(crl.tbsView, crl.signature.algorithmId, crl.signatureValue.valueBlock.valueHexView, issuerDer)
    );
  } catch {
    return false;
  }
}

/**
 * Whether the DSS makes the signer's chain verifiable later: every certificate of the path to a
 * trusted root in /Certs (the root may be left out: it is the verifier's own), and for each one
 * but the root authentic revocation data.
 */
export function dssCoversChain(opts: {
  signerDer: Uint8Array;
  cmsCertsDer: Uint8Array[];
  dss: DssContents;
  trustedRootsDer: Uint8Array[];
  at: Date;
}): boolean {
  const { dss } = opts;
  const chain = validateChain(opts.signerDer, {
    trustedRootsDer: opts.trustedRootsDer,
    untrustedDer: [...opts.cmsCertsDer, ...dss.certs],
    at: [opts.at],
  });
  if (!chain.ok) {
    return false;
  }
  const path = chain.path;
  for (let i = 0; i < path.length - 1; i++) {
    const der = path[i];
    if (!dss.certs.some((c) => c.equals(der))) {
      return false;
    }
    const cert = pkijs.Certificate.fromBER(toArrayBuffer(der));
    const issuerDer = path[i + 1];
    if (!dss.ocsps.some((o) => ocspCovers(o, cert, issuerDer)) && !dss.crls.some((c) => crlCovers(c, cert, issuerDer))) {
      return false;
    }
  }
  return true;
}
