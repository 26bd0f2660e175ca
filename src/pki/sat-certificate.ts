// What a certificate of Mexico's tax authority (SAT) says about its holder, read the way the SAT
// writes it (Anexo 20's and the e.firma's certificate profile, as the SAT's own tools read it):
//   x500UniqueIdentifier (2.5.4.45)  the RFC; for a company "<company RFC> / <representative's RFC>"
//   serialNumber (2.5.4.5)           the CURP; for a company " / <representative's CURP>"
//   CN, name (2.5.4.41), O           the holder's name
//   OU                               present only in a seal certificate (CSD): the branch it seals for
//   serial number                    ASCII digits (the "número de certificado"), e.g. 30001000000500003416
// The e.firma (FIEL) signs for its holder; a CSD only seals invoices and must not sign documents.
// The SAT's issuing CAs have no OU-less leaf of another kind, so OU is how the SAT's own libraries
// tell the two apart; a CSD's key usage is also narrower (no dataEncipherment, keyAgreement or EKU).
import type * as pkijs from 'pkijs';
import { cachedCertificate } from './certificate-cache.js';
import { PkiError } from './errors.js';
import { normalizeSerialHex } from './primitives.js';
import { OID } from './cms/oids.js';

/** An SAT certificate's holder and kind. */
export interface SatCertificate {
  /** FIEL: the e.firma, which signs; CSD: an invoice seal certificate, which must not. */
  kind: 'FIEL' | 'CSD';
  name: string;
  /** The RFC the certificate is for (a company's own, for a company's e.firma), upper-case. */
  rfc: string;
  /** The holder's (or representative's) CURP; '' when absent. */
  curp: string;
  /** Canonical lowercase hex. */
  serialHex: string;
  /** The SAT's certificate number: the serial's bytes as ASCII digits ('' when they are not digits). */
  certificateNumber: string;
  notBefore: Date;
  notAfter: Date;
}

function attribute(name: pkijs.RelativeDistinguishedNames, oid: string): string {
  const found = name.typesAndValues.find((tv) => tv.type === oid);
  const value = (found?.value.valueBlock as { value?: unknown } | undefined)?.value;
  return typeof value === 'string' ? value.trim() : '';
}

/** The first non-empty part of a "A / B" value. */
const firstPart = (value: string) =>
  value
    .split('/')
    .map((p) => p.trim())
    .find((p) => p.length > 0) ?? '';

/** Reads an SAT certificate (DER). Throws PkiError bad_der when it does not parse or names no RFC. */
export function readSatCertificate(der: Uint8Array): SatCertificate {
  let cert: ReturnType<typeof cachedCertificate>;
  try {
    cert = cachedCertificate(der);
  } catch (err) {
    throw new PkiError('bad_der', `the certificate does not parse: ${(err as Error).message}`);
  }
  const subject = cert.pkijs.subject;
  const rfc = firstPart(attribute(subject, OID.x500UniqueIdentifier)).toUpperCase();
  if (!rfc) {
    throw new PkiError('bad_der', 'the certificate names no RFC (x500UniqueIdentifier): it is not an SAT certificate');
  }
  const serial = Buffer.from(cert.pkijs.serialNumber.valueBlock.valueHexView);
  const ascii = serial.toString('latin1');
  return {
    kind: attribute(subject, OID.organizationalUnitName) ? 'CSD' : 'FIEL',
    name: attribute(subject, OID.commonName) || attribute(subject, OID.name) || attribute(subject, OID.organizationName),
    rfc,
    curp: firstPart(attribute(subject, OID.serialNumber)).toUpperCase(),
    serialHex: normalizeSerialHex(serial.toString('hex') || '00'),
    certificateNumber: /^\d+$/.test(ascii) ? ascii : '',
    notBefore: cert.notBefore,
    notAfter: cert.notAfter,
  };
}

/** Splits the operator's SAT certificates into trust anchors (self-signed) and intermediates. */
export function splitTrust(ders: readonly Uint8Array[]): { anchors: Buffer[]; intermediates: Buffer[] } {
  const anchors: Buffer[] = [];
  const intermediates: Buffer[] = [];
  for (const der of ders) {
    const c = cachedCertificate(der);
    (c.x509.checkIssued(c.x509) && c.x509.verify(c.x509.publicKey) ? anchors : intermediates).push(c.der);
  }
  return { anchors, intermediates };
}
