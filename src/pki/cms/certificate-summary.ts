// A certificate as a signature report shows it: names, serial, algorithm and its DER.
import type * as pkijs from 'pkijs';
import { normalizeSerialHex } from '../primitives.js';
import { OID } from './oids.js';
import { SIGNATURE_ALGORITHMS } from './signer-info.js';

/** One certificate as the report shows it. */
export interface CertificateSummary {
  commonName: string;
  /** rfc822Name of subjectAltName, else the deprecated emailAddress of the subject; '' if none. */
  email: string;
  /** Canonical lowercase hex, as the register of issued certificates stores it. */
  serial: string;
  /** e.g. sha256WithRSAEncryption; the OID when the name is not known here. */
  signatureAlgorithm: string;
  issuerCommonName: string;
  der: Buffer;
}

function attribute(name: pkijs.RelativeDistinguishedNames, oid: string): string {
  const found = name.typesAndValues.find((tv) => tv.type === oid);
  const value = (found?.value.valueBlock as { value?: unknown } | undefined)?.value;
  return typeof value === 'string' ? value : '';
}

export function summarizeCertificate(c: pkijs.Certificate): CertificateSummary {
  const san = c.extensions?.find((e) => e.extnID === OID.subjectAltName)?.parsedValue as pkijs.AltName | undefined;
  const sanEmail = san?.altNames.find((n) => n.type === 1)?.value;
  return {
    commonName: attribute(c.subject, OID.commonName),
    email: typeof sanEmail === 'string' ? sanEmail : attribute(c.subject, OID.emailAddress),
    serial: normalizeSerialHex(Buffer.from(c.serialNumber.valueBlock.valueHexView).toString('hex') || '00'),
    signatureAlgorithm: SIGNATURE_ALGORITHMS[c.signatureAlgorithm.algorithmId]?.name ?? c.signatureAlgorithm.algorithmId,
    issuerCommonName: attribute(c.issuer, OID.commonName),
    der: Buffer.from(c.toSchema().toBER(false)),
  };
}
