// What the public PKI endpoints answer: OCSP from the register of issued certificates, CRLs of the
// issuing CA and of the root, and RFC 3161 time stamps. The PKI library signs; this decides.
import { AppError } from '../errors.js';
import type { Clock } from '../deps.js';
import type { Db } from '../../store/db.js';
import {
  createCrl,
  createOcspResponse,
  createTimeStampReply,
  randomSerialHex,
  type LoadedPki,
  type OcspCertStatus,
} from '../../pki/index.js';
import { certificateStatus, nextCrlNumber, revokedCertificates } from '../../store/pki-repo.js';

/** How long a CRL or an OCSP answer may be relied on before a validator asks again. */
const CRL_HOURS = 24;
const OCSP_MINUTES = 60;

export interface PkiResponder {
  pki: LoadedPki;
  ocsp(requestDer: Uint8Array): Promise<Buffer>;
  crl(issuer: 'issuing' | 'root'): Promise<Buffer>;
  timestamp(requestDer: Uint8Array): Promise<Buffer>;
}

export function createPkiResponder(deps: { db: Db; clock: Clock }, pki: LoadedPki, tsaPolicyOid: string): PkiResponder {
  return {
    pki,
    ocsp: (requestDer) =>
      createOcspResponse(pki, requestDer, {
        now: deps.clock.now(),
        nextUpdateMinutes: OCSP_MINUTES,
        lookup: async (serialHex): Promise<OcspCertStatus> => {
          const s = await certificateStatus(deps.db, serialHex);
          if (!s) {
            // RFC 6960 §2.2: "unknown" for a serial this responder never issued.
            return { status: 'unknown' };
          }
          return s.revokedAt ? { status: 'revoked', revokedAt: s.revokedAt, reason: s.reason ?? undefined } : { status: 'good' };
        },
      }),
    crl: async (issuer) => {
      if (issuer === 'root' && !pki.root.privateKey) {
        // An operator's CA: its root key stays with the operator, who publishes the root's CRL.
        throw new AppError('NOT_YET_AVAILABLE', "this service does not hold the root's key; the root CRL is published by the CA's operator");
      }
      const now = deps.clock.now();
      // The issuing CA's CRL lists revoked signer, TSA and OCSP certificates; the root's lists
      // revoked CAs, which this service never revokes by itself.
      const revoked = issuer === 'issuing' ? await revokedCertificates(deps.db) : [];
      return createCrl(pki, {
        issuer,
        revoked,
        thisUpdate: now,
        nextUpdate: new Date(now.getTime() + CRL_HOURS * 3600_000),
        crlNumber: await nextCrlNumber(deps.db, issuer),
      });
    },
    timestamp: (requestDer) =>
      createTimeStampReply(pki, requestDer, { now: deps.clock.now(), serialNumber: randomSerialHex(), policyOid: tsaPolicyOid }),
  };
}
