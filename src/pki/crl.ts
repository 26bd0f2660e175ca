// X.509 v2 CRLs (RFC 5280 §5). The issuing CA's CRL covers signer, TSA and OCSP certificates; the
// root's CRL covers the issuing CA (a CA cannot revoke itself in its own CRL, §6.3.3).
import * as asn1js from 'asn1js';
import * as pkijs from 'pkijs';
import { subjectKeyIdOf } from './certificate-builder.js';
import { PkiError } from './errors.js';
import type { LoadedPki } from './material-types.js';
import { serialToInteger, toArrayBuffer, toTime } from './primitives.js';
import { OID } from './cms/oids.js';

/** A revoked certificate: serial as hex (any case, colons allowed), when, and the RFC 5280 §5.3.1 reason. */
export interface RevokedEntry {
  serialHex: string;
  revokedAt: Date;
  /** CRLReason: 1 keyCompromise, 3 affiliationChanged, 4 superseded, 5 cessationOfOperation, ... */
  reason?: number;
}

export interface CreateCrlOptions {
  revoked: readonly RevokedEntry[];
  thisUpdate: Date;
  nextUpdate: Date;
  /** Monotonically increasing for this issuer (RFC 5280 §5.2.3); the caller keeps the counter. */
  crlNumber: bigint | number;
  /** Whose CRL: the issuing CA's (default, served at /pki/crl) or the root's (/pki/root-crl). */
  issuer?: 'issuing' | 'root';
}

/** Values RFC 5280 §5.3.1 defines; 7 is unassigned. */
const REASONS = new Set([0, 1, 2, 3, 4, 5, 6, 8, 9, 10]);

const ext = (extnID: string, value: asn1js.BaseBlock) => new pkijs.Extension({ extnID, critical: false, extnValue: value.toBER(false) });

/** Builds and signs a CRL; returns its DER. */
export async function createCrl(pki: LoadedPki, options: CreateCrlOptions): Promise<Buffer> {
  const which = options.issuer ?? 'issuing';
  const issuer = which === 'root' ? pki.root : pki.issuing;
  const key = issuer.key;
  if (!key) {
    throw new PkiError('missing_key', 'the root key is not held by the service, so it cannot sign the root CRL');
  }
  if (options.nextUpdate.getTime() <= options.thisUpdate.getTime()) {
    throw new PkiError('bad_argument', 'nextUpdate must come after thisUpdate');
  }
  const crlNumber = BigInt(options.crlNumber);
  if (crlNumber < 0n || crlNumber >= 1n << 159n) {
    throw new PkiError('bad_argument', 'crlNumber is a non-negative integer of at most 20 octets (RFC 5280 §5.2.3)');
  }

  const crl = new pkijs.CertificateRevocationList();
  crl.version = 1; // v2: required as soon as extensions are present (§5.1.2.1)
  crl.issuer = issuer.certificate.subject; // byte-identical to the certificate's subject
  crl.thisUpdate = toTime(options.thisUpdate);
  // nextUpdate is optional in the ASN.1 but conforming CRL issuers MUST include it (§5.1.2.5).
  crl.nextUpdate = toTime(options.nextUpdate);
  if (options.revoked.length > 0) {
    // §5.1.2.6: when nothing is revoked the list MUST be absent, not empty.
    crl.revokedCertificates = options.revoked.map((entry) => {
      const revoked = new pkijs.RevokedCertificate({
        userCertificate: serialToInteger(entry.serialHex),
        revocationDate: toTime(entry.revokedAt),
      });
      if (entry.reason !== undefined && !REASONS.has(entry.reason)) {
        throw new PkiError('bad_argument', `unknown CRL reason code ${entry.reason}`);
      }
      // §5.3.1: the reason code unspecified (0) SHOULD be absent rather than stated.
      if (entry.reason !== undefined && entry.reason !== 0) {
        revoked.crlEntryExtensions = new pkijs.Extensions({
          extensions: [ext(OID.crlReason, new asn1js.Enumerated({ value: entry.reason }))],
        });
      }
      return revoked;
    });
  }
  const keyId = new asn1js.Primitive({
    idBlock: { tagClass: 3, tagNumber: 0 },
    valueHex: toArrayBuffer(subjectKeyIdOf(issuer.certificate)),
  });
  crl.crlExtensions = new pkijs.Extensions({
    extensions: [
      // §5.2.1: conforming CRL issuers MUST use the authority key identifier extension;
      // §5.2.3: and MUST include the CRL number.
      ext(OID.authorityKeyIdentifier, new asn1js.Sequence({ value: [keyId] })),
      ext(OID.crlNumber, asn1js.Integer.fromBigInt(crlNumber)),
    ],
  });
  // As CertificateRevocationList.sign() does, with the service key wherever it lives: the same
  // AlgorithmIdentifier in the TBS and outside it (RFC 5280 §5.1.1.2).
  crl.signature = new pkijs.AlgorithmIdentifier({ algorithmId: key.signatureOid });
  crl.signatureAlgorithm = new pkijs.AlgorithmIdentifier({ algorithmId: key.signatureOid });
  // encodeTBS is public in pkijs's JavaScript but typed protected on this class.
  crl.tbsView = new Uint8Array((crl as unknown as { encodeTBS(): asn1js.Sequence }).encodeTBS().toBER(false));
  crl.signatureValue = new asn1js.BitString({ valueHex: toArrayBuffer(await key.sign(crl.tbsView)) });
  return Buffer.from(crl.toSchema().toBER(false)); // the TBS bytes that were signed
}
