// What the public PKI endpoints answer: OCSP from the register of issued certificates, CRLs of the
// issuing CA and of the root, and RFC 3161 time stamps. The PKI library signs; this decides. It
// also keeps the OCSP responder certificate in use current: a renewal stored by any process (the
// daily job, another process's start) is taken up at the next check, and once the one in use is
// within its renewal window every OCSP answer first checks, at most once an hour. Any other change
// of the stored material is taken up whole when another process announces it (follow-pki-changes.ts).
import { AppError } from '../errors.js';
import type { Clock } from '../deps.js';
import type { Db } from '../../store/db.js';
import {
  checkMaterial,
  createCrl,
  createOcspErrorResponse,
  createOcspResponse,
  createTimeStampReply,
  importPki,
  importPkiIdentity,
  ocspRenewalDue,
  openPkiMaterial,
  randomSerialHex,
  type LoadedPki,
  type OcspCertStatus,
} from '../../pki/index.js';
import { type ServiceKeyStore, ServiceKeyUnavailableError, softwareKeyStore } from '../../pki/service-key.js';
import type { SecretBox } from '../../pki/secret-box.js';
import { certificateStatus, loadPkiMaterial, nextCrlNumber, revokedCertificates } from '../../store/pki-repo.js';
import type { PkiWarn } from './load-pki.js';
import { operatorResponderWarning, renewOcspResponderIfDue, type OcspRenewalSettings } from './renew-ocsp-responder.js';

/** How long a CRL or an OCSP answer may be relied on before a validator asks again. */
const CRL_HOURS = 24;
const OCSP_MINUTES = 60;
/** How often an OCSP answer looks for a renewed responder certificate while the one in use is due. */
const RECHECK_MS = 3600_000;

export interface PkiResponder {
  /** The PKI in use; `pki.ocsp` is replaced when the responder certificate is renewed. */
  pki: LoadedPki;
  ocsp(requestDer: Uint8Array): Promise<Buffer>;
  crl(issuer: 'issuing' | 'root'): Promise<Buffer>;
  timestamp(requestDer: Uint8Array): Promise<Buffer>;
  /**
   * Renews the stored responder certificate when due, takes up the stored one when it is not the
   * one in use, and warns when an operator's own is due. True when the one in use changed. A no-op
   * without `renewal` settings and the master key.
   */
  checkOcspResponder(): Promise<boolean>;
  /**
   * Puts the stored material in use, whole, when it is not the one in use (another process renewed
   * the responder certificate, or started with an operator's CA in place of the generated one):
   * the stored row is what every process signs and answers with. True when the one in use changed.
   */
  takeUpStored(): Promise<boolean>;
  /** Where the service keys are (software, or a PKCS#11 token whose state /healthz reports). */
  keyStore: ServiceKeyStore;
}

type ResponderDeps = { db: Db; clock: Clock; secrets?: SecretBox; warn?: PkiWarn; keyStore?: ServiceKeyStore };

export function createPkiResponder(deps: ResponderDeps, pki: LoadedPki, tsaPolicyOid: string, renewal?: OcspRenewalSettings): PkiResponder {
  const warn = deps.warn ?? ((message: string) => console.warn(`pki: ${message}`));
  let running: Promise<boolean> | undefined;
  let lastCheck = Number.NEGATIVE_INFINITY;

  // One check at a time per process: concurrent OCSP requests share it.
  const checkOnce = (opts: { warn: boolean }) => {
    running ??= takeUpRenewedResponder(deps, responder, renewal, opts.warn ? warn : undefined).finally(() => {
      running = undefined;
    });
    return running;
  };
  // Before an OCSP answer: only while the responder in use is within its renewal window, at most
  // once an hour; a failed check leaves the answer to the certificate in use.
  const current = async (): Promise<LoadedPki> => {
    const now = deps.clock.now();
    if (renewal && ocspRenewalDue(responder.pki.ocsp.certificate.notAfter.value, now) && now.getTime() - lastCheck >= RECHECK_MS) {
      lastCheck = now.getTime();
      await checkOnce({ warn: false }).catch((err: unknown) =>
        warn(`the OCSP responder certificate check failed: ${(err as Error).message}`),
      );
    }
    return responder.pki;
  };

  // One reading at a time, each after the previous: an announcement heard during a reading is read again.
  let reading: Promise<unknown> = Promise.resolve();
  const takeUpStored = () => {
    const run = reading.then(() => takeUpStoredMaterial(deps, responder));
    reading = run.catch(() => undefined);
    return run;
  };

  const responder: PkiResponder = {
    pki,
    keyStore: deps.keyStore ?? softwareKeyStore,
    checkOcspResponder: () => checkOnce({ warn: true }),
    takeUpStored,
    ocsp: async (requestDer) => {
      try {
        return await createOcspResponse(await current(), requestDer, {
          now: deps.clock.now(),
          nextUpdateMinutes: OCSP_MINUTES,
          lookup: (serialHex) => ocspStatusOf(deps.db, serialHex),
        });
      } catch (error) {
        if (!(error instanceof ServiceKeyUnavailableError)) {
          throw error;
        }
        // The responder's key is in a token that cannot be reached: RFC 6960 §2.3 tryLater, the
        // unsigned answer an OCSP client reads as "ask again", never an answer signed otherwise.
        warn(error.message);
        return createOcspErrorResponse('tryLater');
      }
    },
    crl: (issuer) => issueCrl(deps, responder.pki, issuer),
    timestamp: (requestDer) =>
      createTimeStampReply(responder.pki, requestDer, { now: deps.clock.now(), serialNumber: randomSerialHex(), policyOid: tsaPolicyOid }),
  };
  return responder;
}

/**
 * Renews the stored responder certificate when due and puts the stored one in use when it is not;
 * `warn` is told when an operator's own certificate is due. True when the one in use changed.
 */
async function takeUpRenewedResponder(
  deps: ResponderDeps,
  responder: PkiResponder,
  renewal: OcspRenewalSettings | undefined,
  warn: PkiWarn | undefined,
): Promise<boolean> {
  if (!renewal || !deps.secrets) {
    return false;
  }
  const checked = await renewOcspResponderIfDue(
    { db: deps.db, secrets: deps.secrets, clock: deps.clock, keyStore: responder.keyStore },
    renewal,
  );
  if (checked.outcome === 'operator' && warn) {
    warn(operatorResponderWarning(checked.notAfter, deps.clock.now()));
  }
  const stored = checked.material;
  if (stored.ocsp.certificateDer.equals(responder.pki.ocsp.certificateDer)) {
    return false;
  }
  // Only the responder is taken up here; a different issuing CA (an operator's CA replaced) is taken
  // up whole when its change is announced (takeUpStored), as every certificate in use changes with it.
  if (!stored.issuing.certificateDer.equals(responder.pki.issuing.certificateDer)) {
    return false;
  }
  checkMaterial(stored);
  responder.pki = { ...responder.pki, ocsp: await importPkiIdentity(stored.ocsp, 'ocsp', responder.keyStore) };
  return true;
}

/** The stored material in use, whole, unless it is the one in use already. */
async function takeUpStoredMaterial(deps: ResponderDeps, responder: PkiResponder): Promise<boolean> {
  if (!deps.secrets) {
    return false;
  }
  const stored = await loadPkiMaterial(deps.db);
  if (!stored) {
    return false;
  }
  const m = openPkiMaterial(stored.sealed, deps.secrets);
  const inUse = responder.pki;
  if (
    m.root.certificateDer.equals(inUse.root.certificateDer) &&
    m.issuing.certificateDer.equals(inUse.issuing.certificateDer) &&
    m.tsa.certificateDer.equals(inUse.tsa.certificateDer) &&
    m.ocsp.certificateDer.equals(inUse.ocsp.certificateDer)
  ) {
    return false;
  }
  responder.pki = await importPki(m);
  return true;
}

/** The status of a certificate this service issued, as its register says. */
async function ocspStatusOf(db: Db, serialHex: string): Promise<OcspCertStatus> {
  const s = await certificateStatus(db, serialHex);
  if (!s) {
    // RFC 6960 §2.2: "unknown" for a serial this responder never issued.
    return { status: 'unknown' };
  }
  return s.revokedAt ? { status: 'revoked', revokedAt: s.revokedAt, reason: s.reason ?? undefined } : { status: 'good' };
}

async function issueCrl(deps: ResponderDeps, pki: LoadedPki, issuer: 'issuing' | 'root'): Promise<Buffer> {
  if (issuer === 'root' && !pki.root.key) {
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
}
