// What the use cases need from the outside world, handed in by the composition root (main.ts) and
// replaced in tests. Nothing in domain/ reaches for globals.
import type { Config } from '../config.js';
import type { GuardedFetchOptions, GuardedResponse } from '../net/url-guard.js';
import type { ImageJail } from '../jail/image-jail.js';
import type { PdfJail } from '../jail/pdf-jail.js';
import type { SignerKeySource } from '../pki/key-pool.js';
import type { SecretBox } from '../pki/secret-box.js';
import type { TemplateEngines } from '../render/index.js';
import type { PkiResponder } from './pki/pki-responses.js';
import type { MailTransport } from '../notify/email-transport.js';
import type { MessageChannels } from '../notify/message-transport.js';
import type { BlobStore } from '../store/blobs.js';
import type { Db } from '../store/db.js';

export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

export type UrlFetcher = (url: string, options: GuardedFetchOptions) => Promise<GuardedResponse>;

export interface Deps {
  config: Config;
  db: Db;
  blobs: BlobStore;
  secrets: SecretBox;
  clock: Clock;
  /** The one guarded path for outbound HTTP on a client's behalf. */
  fetchUrl: UrlFetcher;
  /** Where every PDF received from a client is read: worker threads with time and memory limits. */
  pdfJail: PdfJail;
  /** Where identity evidence photographs are decoded, measured and read: worker threads with limits. */
  imageJail: ImageJail;
  /** The template engines and their renderer pools. */
  templates: TemplateEngines;
  /** The service's PKI (loaded or generated at start) and what its public endpoints answer. */
  pki: PkiResponder;
  /** One-time signer key pairs, generated ahead of time (a KeyPairPool; see pki/key-pool.ts). */
  signerKeys: SignerKeySource;
  /** The SMTP transport and sender address; absent when no SMTP server is configured (outbox only). */
  mail?: { transport: MailTransport; from: string };
  /** The SMS and WhatsApp transports; a channel without one keeps its messages in the outbox. */
  channels?: MessageChannels;
  /** An external time-stamp authority (SELLO_TSA_URL) and the roots its tokens must chain to. */
  externalTsa?: { url: string; trustedRootsDer: Buffer[] };
  /**
   * Fetches OCSP responses and CRLs for certificates the service did not issue (an external TSA's
   * chain), from the addresses in those certificates; global fetch when absent.
   */
  fetchPkiData?: typeof fetch;
  /**
   * The NOM-151 conservation provider (SELLO_NOM151_*: a PSC's RFC 3161 service) and the roots
   * its tokens must chain to; absent: the built-in authority stamps, labelled as such.
   */
  nom151Psc?: Nom151Psc;
}

export interface Nom151Psc {
  url: string;
  /** HTTP basic credentials. */
  user?: string;
  password?: string;
  /** Asked for in each request and required in each token. */
  policyOid?: string;
  /**
   * Every certificate of SELLO_NOM151_TRUST_PEM, each a trust anchor. Those that are not CAs are
   * the PSC's own time-stamping certificates: given, they name the authority (stamp-authority.ts).
   */
  trustedRootsDer: Buffer[];
  /** SELLO_NOM151_TSA_NAME: the CN or subject of the PSC's time-stamping certificate. */
  tsaName?: string;
}
