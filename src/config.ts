// The only reader of process.env. Every setting is read and validated here, once, at start;
// everything else receives a Config. An invalid environment fails with every bad variable listed,
// so an operator fixes them in one go rather than one restart at a time.
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pemCertificates } from './pki/pem.js';
import {
  DEFAULT_SIGNER_KEY,
  SIGNER_CERT_DAYS,
  SIGNER_KEY_ALGORITHMS,
  SIGNER_KEY_POOL_MAX,
  SIGNER_KEY_POOL_SIZE,
  SIGNER_KEY_THREADS,
  SIGNER_KEY_THREADS_MAX,
  type SignerKeyAlgorithm,
} from './pki/signer-defaults.js';
import { type IdentitySettings, identitySettings } from './config-identity.js';
import { type OperatorBrand, operatorBrandSettings } from './config-brand.js';

export interface Limits {
  /** Largest decoded PDF accepted, in bytes (25 MB). */
  documentBytes: number;
  /** Largest JSON request body, in bytes (by default 4/3 of documentBytes plus 2 MB: 36 MB for 25 MB). */
  jsonBodyBytes: number;
  /** Most pages a document may have. */
  pages: number;
  /** Most distinct signers per document. */
  signersPerDocument: number;
  /** Most stickers (boxes) per document. */
  stickersPerDocument: number;
  /** Most documents per document set. */
  documentsPerSet: number;
  /** Requests a minute per account; 0 turns the limit off. */
  requestsPerMinute: number;
  /** Largest signed PDF a conclusion email attaches; a larger one is sent as a download link. */
  mailAttachmentBytes: number;
  /** Most rows of one bulk run (POST /api/bulk). */
  bulkRows: number;
}

export interface Config {
  env: 'development' | 'production' | 'test';
  port: number;
  host: string;
  publicUrl: string;
  dataDir: string;
  /** External PostgreSQL; when absent the embedded server under dataDir/pg is used. */
  databaseUrl: string | undefined;
  /** Port of the embedded PostgreSQL; 0 picks a free one. */
  embeddedPgPort: number;
  /** Scheme words accepted before the credentials of the Authorization header, lower-cased. */
  authSchemes: string[];
  /** 32-byte key that encrypts secrets at rest; when absent it is generated into dataDir. */
  masterKey: Buffer | undefined;
  /** Development switch: lets url_doc reach private and loopback addresses. */
  allowPrivateUrls: boolean;
  urlFetchTimeoutMs: number;
  logLevel: string;
  /** `json` lines, `pretty` one readable line per request, or `auto`: pretty on a terminal, JSON otherwise. */
  logFormat: 'auto' | 'json' | 'pretty';
  limits: Limits;
  render: RenderSettings;
  pdfJail: PdfJailSettings;
  pki: PkiConfig;
  /** SMTP server URL (smtp:// or smtps://, credentials in the URL); absent: emails stay in the outbox. */
  smtpUrl: string | undefined;
  /** From: of the service's emails. */
  mailFrom: string;
  /** The operator's brand on the panel's sign-in page (SELLO_OPERATOR_NAME, _COLOUR, _LOGO). */
  operatorBrand: OperatorBrand;
  /** An external RFC 3161 time-stamp authority for signatures, instead of the built-in one. */
  tsaUrl: string | undefined;
  /** PEM file with the root(s) the external TSA's certificate chains to. */
  tsaTrustPath: string | undefined;
  /** The NOM-151 conservation provider (a PSC's RFC 3161 service); absent: the built-in authority stamps. */
  nom151: Nom151Settings | undefined;
  /** SMS and WhatsApp providers; a channel without one keeps its messages in the outbox. */
  channels: ChannelSettings;
  workers: WorkerSettings;
  /** Language of the signer page and of the signature's legend when neither the workflow nor the browser gives one the page speaks. */
  defaultLanguage: 'es' | 'en';
  /** Display name of the account created on the first start (signers see it as the sender). */
  firstAccountName: string;
  /** Days before the certificate of a universal rendition's last document time stamp ends that its renewal is due. */
  ltaRenewMarginDays: number;
  sat: SatSettings;
  cert: CertSettings;
  csc: CscSettings;
  identity: IdentitySettings;
  lifecycle: LifecycleSettings;
  /** Where blobs (PDFs, template sources) are kept: files under dataDir/blobs, or an S3 bucket. */
  blobs: BlobSettings;
}

/** How long deleted documents and unreferenced blobs are kept (jobs/purge-deleted-documents.ts, jobs/orphan-blob-sweep.ts). */
export interface LifecycleSettings {
  /** Days a deleted document stays restorable before it is purged; undefined: restorable for good. */
  deletedRetentionDays: number | undefined;
  /** Hours a blob no row names is kept after it was last written before the orphan sweep removes it. */
  orphanGraceHours: number;
}

/** The blob store: the data directory by default; an S3-compatible bucket when many nodes share blobs. */
export type BlobSettings = { kind: 'fs' } | { kind: 's3'; s3: S3Settings };

/** An S3-compatible bucket (AWS S3, MinIO, Ceph RGW, Garage...). */
export interface S3Settings {
  /** The server's URL; absent: AWS S3 for the region. */
  endpoint: string | undefined;
  region: string;
  bucket: string;
  /** Prepended to every key ("" or ending in "/"), so blobs can share a bucket. */
  prefix: string;
  /** Absent: the AWS SDK's default chain (AWS_* variables, shared files, instance or task role). */
  credentials: { accessKeyId: string; secretAccessKey: string } | undefined;
  /** Buckets addressed as ENDPOINT/BUCKET instead of BUCKET.ENDPOINT: what most self-hosted servers need. */
  forcePathStyle: boolean;
  /** Size of each part of a multipart upload; a blob no larger goes up in one request. */
  partBytes: number;
}

/** An operator's certification-service provider (PSC) for NOM-151 stamps. */
export interface Nom151Settings {
  /** Its RFC 3161 endpoint (HTTP POST of application/timestamp-query). */
  url: string;
  /** HTTP basic credentials, when the provider asks for them. */
  user?: string;
  password?: string;
  /** PEM file with the root(s) its time-stamping certificate chains to. */
  trustPath: string;
  /** Policy OID asked for in every request and required in every token; absent: the provider's own. */
  policyOid?: string;
  /** The subject (its CN, or the whole DN) of the PSC's time-stamping certificate; absent: not pinned by name. */
  tsaName?: string;
}

/** Signing with the signer's own SAT e.firma (domain/signing/sat/). */
export interface SatSettings {
  /** The SAT's CA certificates (SELLO_SAT_TRUST_PEM, read at start): roots and issuing CAs. Empty: SAT signing is off. */
  trustedDer: Buffer[];
  /** The SAT's OCSP responder; absent, a signature's revocation status is reported as unknown. */
  ocspUrl: string | undefined;
  /** How long a prepared signature waits for the signer's signature value, in minutes. */
  prepareMinutes: number;
}

/** Signing with the signer's own certificate from a CA the operator trusts (authority CERT). */
export interface CertSettings {
  /** The trusted CAs' certificates (SELLO_CERT_TRUST_PEM, read at start): roots and issuing CAs. Empty: CERT signing is off. */
  trustedDer: Buffer[];
}

/** A remote signing provider (Cloud Signature Consortium API v2) and this service's OAuth 2.0 client there. */
export interface CscProvider {
  /** How signers and the report name it. */
  name: string;
  /** The API's base, e.g. https://tsp.example.com/csc/v2 (oauth2/authorize, credentials/list ... below it). */
  baseUrl: string;
  clientId: string;
  clientSecret: string;
  /** Where the provider sends the signer back; absent: SELLO_PUBLIC_URL + /sign/csc/callback. */
  redirectUri?: string;
}

/** Remote signing (authority CSC): the providers and the CAs whose certificates their credentials may hold. */
export interface CscSettings {
  providers: CscProvider[];
  /** SELLO_CSC_TRUST_PEM: file or directory of PEM CA certificates. Empty (or no provider): CSC signing is off. */
  trustedDer: Buffer[];
}

/** Twilio's Messages API: SMS, and WhatsApp when `whatsappFrom` is set and Meta is not configured. */
export interface TwilioSettings {
  accountSid: string;
  /** Authenticates the API calls and signs the status callbacks (X-Twilio-Signature). */
  authToken: string;
  /** https://api.twilio.com, or a simulator's address in tests. */
  baseUrl: string;
  /** Sender of SMS: a phone number, or a Messaging Service (either enables SMS). */
  smsFrom?: string;
  messagingServiceSid?: string;
  /** WhatsApp sender number (E.164) registered with Twilio. */
  whatsappFrom?: string;
  /** Approved WhatsApp Content templates (ContentSid) per message kind; without one the text is sent as Body. */
  whatsappContent: { invitation?: string; reminder?: string; otp?: string };
}

/** Meta's WhatsApp Cloud API, with approved templates for invitations, reminders and codes. */
export interface MetaWhatsAppSettings {
  accessToken: string;
  phoneNumberId: string;
  /** Signs the webhook's POSTs (X-Hub-Signature-256). */
  appSecret: string;
  /** Echoed by Meta in the GET that verifies the webhook's URL. */
  verifyToken: string;
  /** https://graph.facebook.com, or a simulator's address in tests. */
  baseUrl: string;
  apiVersion: string;
  templates: { invitation: string; reminder: string; otp: string };
  /** Template language code of each workflow language. */
  languages: { es: string; en: string };
}

export interface ChannelSettings {
  twilio?: TwilioSettings;
  meta?: MetaWhatsAppSettings;
}

/** How the job runners of one database tell the live from the dead (jobs/worker-liveness.ts). */
export interface WorkerSettings {
  /** How often a runner records that it is alive, in ms. */
  heartbeatMs: number;
  /** A runner silent this long is dead and its jobs are unlocked, in ms (at least two heartbeats). */
  deadAfterMs: number;
  /** `sello worker` answers GET /healthz on this port (0: no listener), for orchestrators' probes. */
  healthPort: number;
}

export interface PkiConfig {
  /** O= of the certificates the service generates on first start. */
  organization: string;
  /** The operator's own CA, as PEM files (instead of the generated one). */
  pem?: { rootCertPath: string; issuingCertPath: string; issuingKeyPath: string; keyPassphrase?: string };
  /** The operator's own CA, as a PKCS#12 file with the issuing CA's key and chain. */
  pkcs12?: { path: string; password: string; rootCertPath?: string };
  /** Policy OID of the built-in time-stamp authority's tokens (RFC 3161 TSTInfo.policy). */
  tsaPolicyOid: string;
  /**
   * Key of each signature's one-time certificate (pki/signer-certificate.ts) for accounts that did
   * not choose one (`sello account update --signer-key`).
   */
  signerKey: SignerKeyAlgorithm;
  /** One-time signer key pairs kept ready per key type (key-pool.ts). */
  signerKeyPool: number;
  /** Key generations a refill of the pool runs at once, on libuv's thread pool. */
  signerKeyThreads: number;
  /** Life of each signature's certificate in days (cut at the issuing CA's end). */
  signerCertDays: number;
  /** The service's keys (root, issuing CA, TSA, OCSP) in a PKCS#11 token; absent: in software, sealed in the database. */
  pkcs11?: Pkcs11Config;
}

/** A PKCS#11 token holding the service's keys (docs/operations.md, "Service keys in a PKCS#11 token"). */
export interface Pkcs11Config {
  /** Path of the PKCS#11 module (.so). */
  modulePath: string;
  /** The token: its slot ID or its label (one of them). */
  slot?: number;
  tokenLabel?: string;
  /** The user PIN, or the file it is read from at start (one of them). */
  pin?: string;
  pinPath?: string;
  /** The label of each key in the token; a key absent at the PKI's first start is generated there. */
  labels: { root: string; issuing: string; tsa: string; ocsp: string };
}

/** The variables of the token settings, named in the messages about them. */
export const PKCS11_VARIABLES = {
  module: 'SELLO_PKCS11_MODULE',
  slot: 'SELLO_PKCS11_SLOT',
  tokenLabel: 'SELLO_PKCS11_TOKEN_LABEL',
  pin: 'SELLO_PKCS11_PIN',
  pinFile: 'SELLO_PKCS11_PIN_FILE',
  root: 'SELLO_PKCS11_ROOT_KEY_LABEL',
  issuing: 'SELLO_PKCS11_CA_KEY_LABEL',
  tsa: 'SELLO_PKCS11_TSA_KEY_LABEL',
  ocsp: 'SELLO_PKCS11_OCSP_KEY_LABEL',
} as const;

export interface RenderSettings {
  /** Debian's Chromium, which renders html templates. */
  chromiumPath: string;
  /** Pages rendering html at once in the one shared browser. */
  htmlPages: number;
  /** LibreOffice, which converts docx templates. */
  sofficePath: string;
  /** docx conversions at once. */
  docxConcurrency: number;
  /** Longest an html or pdfmake render may take (docx: twice this) before it is stopped. */
  timeoutMs: number;
}

/** The PDF jail (jail/pdf-jail.ts): worker threads that read every PDF received from a client. */
export interface PdfJailSettings {
  /** PDFs read at once, one worker thread each. */
  workers: number;
  /** Reads waiting for a worker; beyond it the request answers 503. */
  queue: number;
  /** Longest one read may take before its worker is stopped (422 PDF_TOO_COMPLEX). */
  timeoutMs: number;
  /** Heap limit of each worker, in MB; a read that needs more is stopped (422 PDF_TOO_COMPLEX). */
  memoryMb: number;
  inflate: {
    /** Most bytes the library may decompress while it works on one file, all streams and filters together. */
    maxTotalBytes: number;
  };
}

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`invalid configuration:\n  - ${problems.join('\n  - ')}`);
  }
}

type Env = Record<string, string | undefined>;

/** Readers of one environment that list what is wrong in `problems` and go on with the default. */
function envReader(env: Env, problems: string[]) {
  const str = (name: string, fallback: string) => {
    const v = env[name];
    return v === undefined || v === '' ? fallback : v;
  };
  const int = (name: string, fallback: number, min: number, max: number) => {
    const raw = env[name];
    if (raw === undefined || raw === '') {
      return fallback;
    }
    const n = Number(raw);
    if (!Number.isInteger(n) || n < min || n > max) {
      problems.push(`${name}=${JSON.stringify(raw)}: expected a whole number from ${min} to ${max}`);
      return fallback;
    }
    return n;
  };
  const bool = (name: string, fallback: boolean) => {
    const raw = env[name];
    if (raw === undefined || raw === '') {
      return fallback;
    }
    if (/^(1|true|yes|on)$/i.test(raw)) {
      return true;
    }
    if (/^(0|false|no|off)$/i.test(raw)) {
      return false;
    }
    problems.push(`${name}=${JSON.stringify(raw)}: expected true or false`);
    return fallback;
  };
  return { str, int, bool };
}

type EnvReader = ReturnType<typeof envReader>;

export function loadConfig(env: Env = process.env): Config {
  const problems: string[] = [];
  const read = envReader(env, problems);
  const { str, int } = read;
  // In this order, so that the problems are listed in the order of the settings' documentation.
  const service = serviceSettings(read, problems);
  const databaseUrl = databaseUrlOf(env, problems);
  const access = accessSettings(env, read, problems, service.appEnv);
  const limits = limitSettings(read);
  const pkiFiles = pkiFileSettings(env, read, problems);
  const pkcs11 = pkcs11Settings(env, pkiFiles, problems);
  const outside = mailAndTsaSettings(env, problems);
  const nom151 = nom151Settings(env, problems);
  const sat = satSettings(env, problems);
  const cert = certSettings(env, problems);
  const channels = channelSettings(env, problems);
  const workers = workerSettings(read, problems);
  const people = firstStartSettings(env, read, problems, service.publicHost);

  const config: Config = {
    env: service.appEnv ?? 'development',
    port: service.port,
    host: service.host,
    publicUrl: service.publicUrl,
    dataDir: resolve(str('SELLO_DATA_DIR', './data')),
    databaseUrl,
    embeddedPgPort: int('SELLO_EMBEDDED_PG_PORT', 0, 0, 65535),
    ...access,
    urlFetchTimeoutMs: int('SELLO_URL_FETCH_TIMEOUT_MS', 30000, 100, 600000),
    logLevel: str('SELLO_LOG_LEVEL', service.appEnv === 'test' ? 'warn' : 'info'),
    logFormat: str('SELLO_LOG_FORMAT', 'auto') as Config['logFormat'],
    limits,
    ...outside,
    nom151,
    channels,
    workers,
    ...people,
    ltaRenewMarginDays: int('SELLO_LTA_RENEW_MARGIN_DAYS', 30, 1, 3650),
    sat: { ...sat, prepareMinutes: int('SELLO_SAT_PREPARE_MINUTES', 5, 1, 60) },
    cert,
    csc: cscSettings(env, problems),
    identity: identitySettings(env, problems),
    lifecycle: {
      deletedRetentionDays: env.SELLO_DELETED_RETENTION_DAYS ? int('SELLO_DELETED_RETENTION_DAYS', 0, 1, 36500) : undefined,
      orphanGraceHours: int('SELLO_ORPHAN_BLOB_GRACE_HOURS', 24, 1, 8760),
    },
    blobs: blobSettings(env, read, problems),
    mailFrom: str('SELLO_MAIL_FROM', `Sello <no-reply@${service.publicHost}>`),
    operatorBrand: operatorBrandSettings(env, problems),
    pdfJail: pdfJailSettings(read),
    pki: pkiSettings(read, pkiFiles, pkcs11),
    render: renderSettings(read),
  };
  checkChoices(config, env, problems);
  if (problems.length > 0) {
    throw new ConfigError(problems);
  }
  return config;
}

/** NODE_ENV, PORT, HOST and SELLO_PUBLIC_URL: where the service listens and the address it is reached at. */
function serviceSettings({ str, int }: EnvReader, problems: string[]) {
  const nodeEnv = str('NODE_ENV', 'development');
  const appEnv = (['development', 'production', 'test'] as const).find((e) => e === nodeEnv);
  if (!appEnv) {
    problems.push(`NODE_ENV=${JSON.stringify(nodeEnv)}: expected development, production or test`);
  }
  const port = int('PORT', 3000, 0, 65535);
  const host = str('HOST', '127.0.0.1');

  let publicUrl = str('SELLO_PUBLIC_URL', `http://localhost:${port}`);
  try {
    const u = new URL(publicUrl);
    if (u.protocol !== 'http:' && u.protocol !== 'https:') {
      throw new Error('scheme');
    }
    if (u.search || u.hash) {
      throw new Error('query');
    }
    publicUrl = publicUrl.replace(/\/+$/, '');
  } catch {
    problems.push(`SELLO_PUBLIC_URL=${JSON.stringify(publicUrl)}: expected an absolute http(s) URL without query`);
  }
  let publicHost = 'localhost';
  try {
    publicHost = new URL(publicUrl).hostname;
  } catch {
    // already reported above
  }
  return { appEnv, port, host, publicUrl, publicHost };
}

/** DATABASE_URL: an external PostgreSQL; unset, the embedded one. */
function databaseUrlOf(env: Env, problems: string[]): string | undefined {
  const databaseUrl = env.DATABASE_URL || undefined;
  if (databaseUrl && !/^postgres(ql)?:\/\//.test(databaseUrl)) {
    problems.push('DATABASE_URL: expected a postgres:// or postgresql:// URL');
  }
  return databaseUrl;
}

/** Who may call and what the service may reach: authorization schemes, the master key, private URLs. */
function accessSettings(env: Env, { str, bool }: EnvReader, problems: string[], appEnv: Config['env'] | undefined) {
  const authSchemes = str('SELLO_AUTH_SCHEMES', 'svc')
    .split(',')
    .map((s) => s.trim().toLowerCase())
    .filter(Boolean);
  if (authSchemes.length === 0 || authSchemes.some((s) => !/^[a-z0-9!#$%&'*+.^_`|~-]+$/.test(s))) {
    problems.push('SELLO_AUTH_SCHEMES: expected a comma-separated list of words (HTTP token characters)');
  }

  let masterKey: Buffer | undefined;
  const mk = env.SELLO_MASTER_KEY;
  if (mk) {
    masterKey = Buffer.from(mk, 'base64');
    if (masterKey.length !== 32) {
      problems.push('SELLO_MASTER_KEY: expected 32 random bytes in Base64 (openssl rand -base64 32)');
      masterKey = undefined;
    }
  }

  const allowPrivateUrls = bool('SELLO_ALLOW_PRIVATE_URLS', false);
  if (allowPrivateUrls && appEnv === 'production') {
    problems.push('SELLO_ALLOW_PRIVATE_URLS: not allowed when NODE_ENV=production (it opens server-side request forgery)');
  }
  return { authSchemes, masterKey, allowPrivateUrls };
}

const mb = 1024 * 1024;

/** SELLO_MAX_* and the rate limit: the bounds of one request. */
function limitSettings({ int }: EnvReader): Limits {
  const documentMb = int('SELLO_MAX_DOCUMENT_MB', 25, 1, 1024);
  return {
    documentBytes: documentMb * mb,
    // A document travels in Base64 (4 characters for 3 bytes) inside the JSON body: unless set, the
    // body limit follows the document limit, so raising that one alone is enough.
    jsonBodyBytes: int('SELLO_MAX_JSON_MB', Math.min(2048, Math.ceil((documentMb * 4) / 3) + 2), 1, 2048) * mb,
    pages: int('SELLO_MAX_PAGES', 2000, 1, 100000),
    signersPerDocument: int('SELLO_MAX_SIGNERS', 50, 1, 1000),
    stickersPerDocument: int('SELLO_MAX_STICKERS', 500, 1, 10000),
    documentsPerSet: int('SELLO_MAX_SET_DOCUMENTS', 100, 1, 10000),
    requestsPerMinute: int('SELLO_RATE_LIMIT_PER_MINUTE', 600, 0, 10_000_000),
    mailAttachmentBytes: int('SELLO_MAX_ATTACHMENT_KB', 10240, 1, 1024 * 1024) * 1024,
    bulkRows: int('SELLO_BULK_MAX_ROWS', 1000, 1, 100_000),
  };
}

/** The operator's own CA (PEM files or a PKCS#12 file) and the time-stamp policy. */
function pkiFileSettings(env: Env, { str }: EnvReader, problems: string[]) {
  const pemPaths = ['SELLO_PKI_ROOT_CERT', 'SELLO_PKI_ISSUING_CERT', 'SELLO_PKI_ISSUING_KEY'].map((n) => env[n] || undefined);
  const p12 = env.SELLO_PKI_PKCS12 || undefined;
  let pem: PkiConfig['pem'];
  // With a PKCS#12 file, SELLO_PKI_ROOT_CERT alone names its root; the PEM set is the other two.
  if (p12 ? pemPaths[1] || pemPaths[2] : pemPaths.some(Boolean)) {
    if (!pemPaths.every(Boolean)) {
      problems.push(
        'SELLO_PKI_ROOT_CERT, SELLO_PKI_ISSUING_CERT and SELLO_PKI_ISSUING_KEY: set all three (PEM files of your own CA) or none',
      );
    } else if (p12) {
      problems.push('SELLO_PKI_PKCS12: set either the PEM files or the PKCS#12 file of your CA, not both');
    } else {
      pem = {
        rootCertPath: resolve(pemPaths[0]!),
        issuingCertPath: resolve(pemPaths[1]!),
        issuingKeyPath: resolve(pemPaths[2]!),
        keyPassphrase: env.SELLO_PKI_KEY_PASSPHRASE || undefined,
      };
    }
  }
  const pkcs12: PkiConfig['pkcs12'] = p12
    ? {
        path: resolve(p12),
        password: env.SELLO_PKI_PKCS12_PASSWORD ?? '',
        rootCertPath: env.SELLO_PKI_ROOT_CERT ? resolve(env.SELLO_PKI_ROOT_CERT) : undefined,
      }
    : undefined;
  // Default: an OID under 2.25 (ITU-T X.667: derived from a UUID, so nobody else's arc).
  const tsaPolicyOid = str('SELLO_TSA_POLICY_OID', '2.25.44711949293045456837671144841923094334');
  if (!/^[0-2](\.\d+)+$/.test(tsaPolicyOid)) {
    problems.push(`SELLO_TSA_POLICY_OID=${JSON.stringify(tsaPolicyOid)}: expected a dotted object identifier`);
  }
  return { pem, pkcs12, tsaPolicyOid };
}

/** The PKCS#11 token of the service's keys, when SELLO_PKCS11_MODULE is set. */
function pkcs11Settings(env: Env, files: ReturnType<typeof pkiFileSettings>, problems: string[]): Pkcs11Config | undefined {
  const v = PKCS11_VARIABLES;
  const modulePath = env[v.module] || undefined;
  if (!modulePath) {
    const stray = Object.values(v).filter((name) => env[name]);
    if (stray.length > 0) {
      problems.push(`${stray.join(', ')}: token settings without ${v.module} (the PKCS#11 module's path)`);
    }
    return undefined;
  }
  if (files.pem || files.pkcs12) {
    problems.push(`${v.module}: keys in a token go with the PKI the service generates, not with your own CA's key files (SELLO_PKI_*)`);
  }
  const slotText = env[v.slot] || undefined;
  const tokenLabel = env[v.tokenLabel] || undefined;
  if ((slotText === undefined) === (tokenLabel === undefined)) {
    problems.push(`${v.slot} or ${v.tokenLabel}: set one of them, to name the token`);
  }
  const slot = slotText === undefined ? undefined : Number(slotText);
  if (slot !== undefined && !(Number.isSafeInteger(slot) && slot >= 0)) {
    problems.push(`${v.slot}=${JSON.stringify(slotText)}: expected the slot's number`);
  }
  const pin = env[v.pin] || undefined;
  const pinFile = env[v.pinFile] || undefined;
  if ((pin === undefined) === (pinFile === undefined)) {
    problems.push(`${v.pin} or ${v.pinFile}: set one of them (the token's user PIN, or a file holding it)`);
  }
  const label = (name: string, fallback: string) => env[name] || fallback;
  const labels = {
    root: label(v.root, 'sello-root'),
    issuing: label(v.issuing, 'sello-ca'),
    tsa: label(v.tsa, 'sello-tsa'),
    ocsp: label(v.ocsp, 'sello-ocsp'),
  };
  if (new Set(Object.values(labels)).size !== 4) {
    problems.push(`${v.root}, ${v.issuing}, ${v.tsa}, ${v.ocsp}: each key needs a label of its own`);
  }
  return { modulePath: resolve(modulePath), slot, tokenLabel, pin, pinPath: pinFile && resolve(pinFile), labels };
}

/** The PKI as configured: the CA's files, and the keys and lifetime of signers' certificates. */
function pkiSettings({ str, int }: EnvReader, files: ReturnType<typeof pkiFileSettings>, pkcs11?: Pkcs11Config): PkiConfig {
  return {
    pkcs11,
    organization: str('SELLO_PKI_ORGANIZATION', 'Sello'),
    pem: files.pem,
    pkcs12: files.pem ? undefined : files.pkcs12,
    tsaPolicyOid: files.tsaPolicyOid,
    signerKey: str('SELLO_SIGNER_KEY', DEFAULT_SIGNER_KEY) as PkiConfig['signerKey'],
    signerCertDays: int('SELLO_SIGNER_CERT_DAYS', SIGNER_CERT_DAYS, 1, 3650),
    signerKeyPool: int('SELLO_SIGNER_KEY_POOL', SIGNER_KEY_POOL_SIZE, 1, SIGNER_KEY_POOL_MAX),
    signerKeyThreads: int('SELLO_SIGNER_KEY_THREADS', SIGNER_KEY_THREADS, 1, SIGNER_KEY_THREADS_MAX),
  };
}

/** The SMTP server and an external RFC 3161 time-stamp authority with the root it chains to. */
function mailAndTsaSettings(env: Env, problems: string[]) {
  const smtpUrl = env.SELLO_SMTP_URL || undefined;
  if (smtpUrl && !/^smtps?:\/\/[^\s]+$/.test(smtpUrl)) {
    problems.push('SELLO_SMTP_URL: expected smtp://[user:password@]host[:port] or smtps://...');
  }
  const tsaUrl = env.SELLO_TSA_URL || undefined;
  if (tsaUrl && !/^https?:\/\/\S+$/.test(tsaUrl)) {
    problems.push('SELLO_TSA_URL: expected an http(s) URL of an RFC 3161 time-stamp authority');
  }
  if (tsaUrl && !env.SELLO_TSA_TRUST_PEM) {
    problems.push('SELLO_TSA_TRUST_PEM: required with SELLO_TSA_URL (a PEM file with the root the TSA chains to)');
  }
  return { smtpUrl, tsaUrl, tsaTrustPath: env.SELLO_TSA_TRUST_PEM ? resolve(env.SELLO_TSA_TRUST_PEM) : undefined };
}

/** SELLO_WORKER_*: how often a job runner says it is alive, and when its silence makes it dead. */
function workerSettings({ int }: EnvReader, problems: string[]): WorkerSettings {
  const workers: WorkerSettings = {
    heartbeatMs: int('SELLO_WORKER_HEARTBEAT_MS', 5000, 100, 60_000),
    deadAfterMs: int('SELLO_WORKER_DEAD_AFTER_MS', 20_000, 200, 3_600_000),
    healthPort: int('SELLO_WORKER_HEALTH_PORT', 0, 0, 65535),
  };
  // One late heartbeat (a busy database, a pause of the process) must not make a live runner dead.
  if (workers.deadAfterMs < 2 * workers.heartbeatMs) {
    problems.push(
      `SELLO_WORKER_DEAD_AFTER_MS=${workers.deadAfterMs}: must be at least twice SELLO_WORKER_HEARTBEAT_MS (${workers.heartbeatMs})`,
    );
  }
  return workers;
}

/** The language of new accounts' messages and the first account's name. */
function firstStartSettings(env: Env, { str }: EnvReader, problems: string[], publicHost: string) {
  const defaultLanguage = str('SELLO_DEFAULT_LANGUAGE', 'es').toLowerCase();
  if (defaultLanguage !== 'es' && defaultLanguage !== 'en') {
    problems.push(`SELLO_DEFAULT_LANGUAGE=${JSON.stringify(env.SELLO_DEFAULT_LANGUAGE)}: expected es or en`);
  }
  const firstAccountName = str('SELLO_ACCOUNT_NAME', publicHost).trim();
  if (firstAccountName.length === 0 || firstAccountName.length > 200) {
    problems.push('SELLO_ACCOUNT_NAME: expected 1 to 200 characters');
  }
  return { defaultLanguage: defaultLanguage === 'en' ? ('en' as const) : ('es' as const), firstAccountName: firstAccountName || 'Sello' };
}

/** SELLO_PDF_*: the worker threads untrusted PDFs are read in, and the decompression budget. */
function pdfJailSettings({ int }: EnvReader): PdfJailSettings {
  return {
    workers: int('SELLO_PDF_WORKERS', 2, 1, 64),
    queue: int('SELLO_PDF_QUEUE', 32, 0, 10000),
    timeoutMs: int('SELLO_PDF_TIMEOUT_MS', 10000, 100, 600000),
    memoryMb: int('SELLO_PDF_MEMORY_MB', 512, 64, 16384),
    inflate: {
      maxTotalBytes: int('SELLO_PDF_INFLATE_MB', 256, 1, 16384) * mb,
    },
  };
}

/** The programs html and docx templates are rendered with, and their bounds. */
function renderSettings({ str, int }: EnvReader): RenderSettings {
  return {
    chromiumPath: str('SELLO_CHROMIUM_PATH', '/usr/bin/chromium'),
    htmlPages: int('SELLO_RENDER_PAGES', 4, 1, 64),
    sofficePath: str('SELLO_SOFFICE_PATH', 'soffice'),
    docxConcurrency: int('SELLO_DOCX_CONCURRENCY', 2, 1, 32),
    timeoutMs: int('SELLO_RENDER_TIMEOUT_MS', 30000, 100, 600000),
  };
}

/** Settings that name one of a few choices, checked once read; and removed settings still set. */
function checkChoices(config: Config, env: Env, problems: string[]): void {
  if (!(SIGNER_KEY_ALGORITHMS as readonly string[]).includes(config.pki.signerKey)) {
    problems.push(`SELLO_SIGNER_KEY=${JSON.stringify(config.pki.signerKey)}: expected ecdsa-p256 or rsa-2048`);
  }
  if (!['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].includes(config.logLevel)) {
    problems.push(`SELLO_LOG_LEVEL=${JSON.stringify(config.logLevel)}: expected fatal, error, warn, info, debug, trace or silent`);
  }
  if (!['auto', 'json', 'pretty'].includes(config.logFormat)) {
    problems.push(`SELLO_LOG_FORMAT=${JSON.stringify(config.logFormat)}: expected auto, json or pretty`);
  }
  // A removed setting still set is listed, not ignored: the operator meant something by it.
  if (env.SELLO_PDF_INFLATE_RATIO !== undefined) {
    problems.push(
      'SELLO_PDF_INFLATE_RATIO: no longer supported (a scan with blank pages inflates 1,000 times and is no bomb); decompression is bounded by SELLO_PDF_INFLATE_MB: remove it',
    );
  }
}

/** SELLO_NOM151_*: the PSC is all or nothing (a URL without the roots it must chain to is refused). */
function nom151Settings(env: Env, problems: string[]): Nom151Settings | undefined {
  const url = env.SELLO_NOM151_URL || undefined;
  const others = [
    'SELLO_NOM151_USER',
    'SELLO_NOM151_PASSWORD',
    'SELLO_NOM151_TRUST_PEM',
    'SELLO_NOM151_POLICY_OID',
    'SELLO_NOM151_TSA_NAME',
  ].filter((n) => env[n]);
  if (!url) {
    if (others.length > 0) {
      problems.push(`${others.join(', ')}: set only with SELLO_NOM151_URL (the provider's RFC 3161 URL)`);
    }
    return undefined;
  }
  if (!/^https?:\/\/\S+$/.test(url)) {
    problems.push('SELLO_NOM151_URL: expected an http(s) URL of an RFC 3161 time-stamp service');
  }
  if (!env.SELLO_NOM151_TRUST_PEM) {
    problems.push('SELLO_NOM151_TRUST_PEM: required with SELLO_NOM151_URL (a PEM file with the root the provider chains to)');
  }
  const policyOid = env.SELLO_NOM151_POLICY_OID || undefined;
  if (policyOid && !/^[0-2](\.\d+)+$/.test(policyOid)) {
    problems.push(`SELLO_NOM151_POLICY_OID=${JSON.stringify(policyOid)}: expected a dotted object identifier`);
  }
  const user = env.SELLO_NOM151_USER || undefined;
  const password = env.SELLO_NOM151_PASSWORD || undefined;
  if ((user === undefined) !== (password === undefined)) {
    problems.push('SELLO_NOM151_USER and SELLO_NOM151_PASSWORD: set both (HTTP basic credentials) or neither');
  }
  if (user?.includes(':')) {
    problems.push('SELLO_NOM151_USER: must not contain ":" (HTTP basic authentication, RFC 7617)');
  }
  const tsaName = env.SELLO_NOM151_TSA_NAME?.trim() || undefined;
  if (tsaName !== undefined && tsaName.length > 500) {
    problems.push("SELLO_NOM151_TSA_NAME: at most 500 characters (the CN or the subject of the PSC's time-stamping certificate)");
  }
  return { url, user, password, trustPath: resolve(env.SELLO_NOM151_TRUST_PEM ?? ''), policyOid, tsaName };
}

/** SELLO_SAT_TRUST_PEM (a PEM file of the SAT's CA certificates) and SELLO_SAT_OCSP_URL. */
function satSettings(env: NodeJS.ProcessEnv, problems: string[]): Omit<SatSettings, 'prepareMinutes'> {
  const ocspUrl = env.SELLO_SAT_OCSP_URL || undefined;
  if (ocspUrl && !/^https?:\/\/\S+$/.test(ocspUrl)) {
    problems.push('SELLO_SAT_OCSP_URL: expected an http(s) URL of the SAT OCSP responder');
  }
  const path = env.SELLO_SAT_TRUST_PEM;
  if (!path) {
    return { trustedDer: [], ocspUrl };
  }
  try {
    const trustedDer = pemCertificates(readFileSync(resolve(path), 'utf8'));
    if (trustedDer.length === 0) {
      problems.push(`SELLO_SAT_TRUST_PEM=${path}: the file holds no certificate`);
    }
    return { trustedDer, ocspUrl };
  } catch (err) {
    problems.push(`SELLO_SAT_TRUST_PEM=${path}: ${(err as Error).message}`);
    return { trustedDer: [], ocspUrl };
  }
}

/**
 * SELLO_CERT_TRUST_PEM: a PEM file, or a directory whose *.pem and *.crt files are read, holding the
 * CA certificates whose signers may sign with their own certificate (the CERT trust list).
 */
function certSettings(env: NodeJS.ProcessEnv, problems: string[]): CertSettings {
  return { trustedDer: trustList('SELLO_CERT_TRUST_PEM', env.SELLO_CERT_TRUST_PEM, problems) };
}

/**
 * SELLO_CSC_PROVIDERS: a JSON array of {name, base_url, client_id, client_secret, redirect_uri?};
 * SELLO_CSC_TRUST_PEM: the CAs whose certificates the providers' credentials may hold (as CERT's).
 */
function cscSettings(env: NodeJS.ProcessEnv, problems: string[]): CscSettings {
  const trustedDer = trustList('SELLO_CSC_TRUST_PEM', env.SELLO_CSC_TRUST_PEM, problems);
  const raw = env.SELLO_CSC_PROVIDERS;
  if (!raw) {
    return { providers: [], trustedDer };
  }
  let list: unknown;
  try {
    list = JSON.parse(raw);
  } catch {
    problems.push('SELLO_CSC_PROVIDERS: expected a JSON array of {name, base_url, client_id, client_secret, redirect_uri?}');
    return { providers: [], trustedDer };
  }
  const providers: CscProvider[] = [];
  const items = Array.isArray(list) ? list : [list];
  items.forEach((item, i) => {
    const p = (item ?? {}) as Record<string, unknown>;
    const text = (k: string) => (typeof p[k] === 'string' ? (p[k] as string).trim() : '');
    const missing = ['name', 'base_url', 'client_id', 'client_secret'].filter((k) => !text(k));
    if (!Array.isArray(list) || missing.length > 0) {
      problems.push(`SELLO_CSC_PROVIDERS[${i}]: ${Array.isArray(list) ? `missing ${missing.join(', ')}` : 'expected an array'}`);
      return;
    }
    if (!/^https?:\/\/\S+$/.test(text('base_url')) || (text('redirect_uri') && !/^https?:\/\/\S+$/.test(text('redirect_uri')))) {
      problems.push(`SELLO_CSC_PROVIDERS[${i}]: base_url and redirect_uri must be http(s) URLs`);
      return;
    }
    providers.push({
      name: text('name'),
      baseUrl: text('base_url').replace(/\/+$/, ''),
      clientId: text('client_id'),
      clientSecret: text('client_secret'),
      ...(text('redirect_uri') ? { redirectUri: text('redirect_uri') } : {}),
    });
  });
  if (new Set(providers.map((p) => p.name)).size !== providers.length) {
    problems.push('SELLO_CSC_PROVIDERS: two providers have the same name');
  }
  return { providers, trustedDer };
}

/** A trust list: a PEM file, or a directory whose *.pem and *.crt files are read. */
function trustList(name: string, path: string | undefined, problems: string[]): Buffer[] {
  if (!path) {
    return [];
  }
  try {
    const at = resolve(path);
    const files = statSync(at).isDirectory()
      ? readdirSync(at)
          .filter((f) => /\.(pem|crt)$/i.test(f))
          .sort()
          .map((f) => join(at, f))
      : [at];
    const trustedDer = files.flatMap((f) => pemCertificates(readFileSync(f, 'utf8')));
    if (trustedDer.length === 0) {
      problems.push(`${name}=${path}: no certificate found`);
    }
    return trustedDer;
  } catch (err) {
    problems.push(`${name}=${path}: ${(err as Error).message}`);
    return [];
  }
}

/** SELLO_TWILIO_* and SELLO_META_*: each provider is all or nothing; its base URL may be replaced. */
function channelSettings(env: Env, problems: string[]): ChannelSettings {
  const read = channelReader(env, problems);
  const out: ChannelSettings = {};
  const twilio = twilioSettings(env, read, problems);
  if (twilio) {
    out.twilio = twilio;
  }
  const meta = metaSettings(env, read, problems);
  if (meta) {
    out.meta = meta;
  }
  return out;
}

/** Readers of a channel's settings: a value, a base URL (its trailing slashes dropped), a phone number. */
function channelReader(env: Env, problems: string[]) {
  const get = (n: string) => env[n] || undefined;
  const url = (n: string, fallback: string) => {
    const v = (get(n) ?? fallback).replace(/\/+$/, '');
    if (!/^https?:\/\/\S+$/.test(v)) {
      problems.push(`${n}=${JSON.stringify(v)}: expected an http(s) URL`);
    }
    return v;
  };
  const phone = (n: string) => {
    const v = get(n);
    if (v !== undefined && !/^\+[1-9]\d{6,14}$/.test(v)) {
      problems.push(`${n}=${JSON.stringify(v)}: expected a phone number in E.164 form (+ and 7 to 15 digits)`);
    }
    return v;
  };
  return { get, url, phone };
}

/** SELLO_TWILIO_*: SMS and WhatsApp through Twilio's Messages API, with at least one sender. */
function twilioSettings(env: Env, { get, url, phone }: ReturnType<typeof channelReader>, problems: string[]): TwilioSettings | undefined {
  const twilioNames = [
    'SELLO_TWILIO_SMS_FROM',
    'SELLO_TWILIO_MESSAGING_SERVICE_SID',
    'SELLO_TWILIO_WHATSAPP_FROM',
    'SELLO_TWILIO_BASE_URL',
    'SELLO_TWILIO_WHATSAPP_CONTENT_INVITATION',
    'SELLO_TWILIO_WHATSAPP_CONTENT_REMINDER',
    'SELLO_TWILIO_WHATSAPP_CONTENT_OTP',
  ];
  const sid = get('SELLO_TWILIO_ACCOUNT_SID');
  const token = get('SELLO_TWILIO_AUTH_TOKEN');
  if (sid || token) {
    if (!sid || !token) {
      problems.push('SELLO_TWILIO_ACCOUNT_SID and SELLO_TWILIO_AUTH_TOKEN: set both or neither');
    }
    const t: TwilioSettings = {
      accountSid: sid ?? '',
      authToken: token ?? '',
      baseUrl: url('SELLO_TWILIO_BASE_URL', 'https://api.twilio.com'),
      smsFrom: phone('SELLO_TWILIO_SMS_FROM'),
      messagingServiceSid: get('SELLO_TWILIO_MESSAGING_SERVICE_SID'),
      whatsappFrom: phone('SELLO_TWILIO_WHATSAPP_FROM'),
      whatsappContent: {
        invitation: get('SELLO_TWILIO_WHATSAPP_CONTENT_INVITATION'),
        reminder: get('SELLO_TWILIO_WHATSAPP_CONTENT_REMINDER'),
        otp: get('SELLO_TWILIO_WHATSAPP_CONTENT_OTP'),
      },
    };
    if (!t.smsFrom && !t.messagingServiceSid && !t.whatsappFrom) {
      problems.push('SELLO_TWILIO_SMS_FROM, SELLO_TWILIO_MESSAGING_SERVICE_SID or SELLO_TWILIO_WHATSAPP_FROM: set at least one sender');
    }
    return t;
  }
  const stray = twilioNames.filter((n) => env[n]);
  if (stray.length > 0) {
    problems.push(`${stray.join(', ')}: set only with SELLO_TWILIO_ACCOUNT_SID and SELLO_TWILIO_AUTH_TOKEN`);
  }
  return undefined;
}

/** SELLO_META_*: WhatsApp through Meta's Cloud API; four settings required together, the rest with defaults. */
function metaSettings(env: Env, { get, url }: ReturnType<typeof channelReader>, problems: string[]): MetaWhatsAppSettings | undefined {
  const metaRequired = ['SELLO_META_ACCESS_TOKEN', 'SELLO_META_PHONE_NUMBER_ID', 'SELLO_META_APP_SECRET', 'SELLO_META_VERIFY_TOKEN'];
  const metaOptional = [
    'SELLO_META_BASE_URL',
    'SELLO_META_API_VERSION',
    'SELLO_META_TEMPLATE_INVITATION',
    'SELLO_META_TEMPLATE_REMINDER',
    'SELLO_META_TEMPLATE_OTP',
    'SELLO_META_LANGUAGE_ES',
    'SELLO_META_LANGUAGE_EN',
  ];
  const metaSet = metaRequired.filter((n) => env[n]);
  if (metaSet.length > 0) {
    if (metaSet.length < metaRequired.length) {
      problems.push(`${metaRequired.filter((n) => !env[n]).join(', ')}: required with ${metaSet.join(', ')} (Meta's WhatsApp Cloud API)`);
    }
    const apiVersion = get('SELLO_META_API_VERSION') ?? 'v21.0';
    if (!/^v\d+\.\d+$/.test(apiVersion)) {
      problems.push(`SELLO_META_API_VERSION=${JSON.stringify(apiVersion)}: expected a Graph API version such as v21.0`);
    }
    return {
      accessToken: get('SELLO_META_ACCESS_TOKEN') ?? '',
      phoneNumberId: get('SELLO_META_PHONE_NUMBER_ID') ?? '',
      appSecret: get('SELLO_META_APP_SECRET') ?? '',
      verifyToken: get('SELLO_META_VERIFY_TOKEN') ?? '',
      baseUrl: url('SELLO_META_BASE_URL', 'https://graph.facebook.com'),
      apiVersion,
      templates: {
        invitation: get('SELLO_META_TEMPLATE_INVITATION') ?? 'sello_invitation',
        reminder: get('SELLO_META_TEMPLATE_REMINDER') ?? 'sello_reminder',
        otp: get('SELLO_META_TEMPLATE_OTP') ?? 'sello_code',
      },
      languages: { es: get('SELLO_META_LANGUAGE_ES') ?? 'es_MX', en: get('SELLO_META_LANGUAGE_EN') ?? 'en_US' },
    };
  }
  const stray = metaOptional.filter((n) => env[n]);
  if (stray.length > 0) {
    problems.push(`${stray.join(', ')}: set only with ${metaRequired.join(', ')}`);
  }
  return undefined;
}

const S3_VARIABLES = [
  'SELLO_S3_BUCKET',
  'SELLO_S3_ENDPOINT',
  'SELLO_S3_REGION',
  'SELLO_S3_PREFIX',
  'SELLO_S3_ACCESS_KEY_ID',
  'SELLO_S3_SECRET_ACCESS_KEY',
  'SELLO_S3_FORCE_PATH_STYLE',
  'SELLO_S3_PART_MB',
];

/** SELLO_BLOB_STORE and SELLO_S3_*: the data directory by default; a bucket needs at least its name. */
function blobSettings(env: Env, { str, int, bool }: EnvReader, problems: string[]): BlobSettings {
  const kind = str('SELLO_BLOB_STORE', 'fs');
  if (kind !== 's3') {
    if (kind !== 'fs') {
      problems.push(`SELLO_BLOB_STORE=${JSON.stringify(kind)}: expected fs or s3`);
    }
    const stray = S3_VARIABLES.filter((n) => env[n]);
    if (kind === 'fs' && stray.length > 0) {
      problems.push(`${stray.join(', ')}: set only with SELLO_BLOB_STORE=s3`);
    }
    return { kind: 'fs' };
  }
  const bucket = str('SELLO_S3_BUCKET', '');
  if (!bucket) {
    problems.push('SELLO_S3_BUCKET: required with SELLO_BLOB_STORE=s3');
  } else if (!/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/.test(bucket)) {
    problems.push(
      `SELLO_S3_BUCKET=${JSON.stringify(bucket)}: expected a bucket name (3 to 63 lower-case letters, digits, dots and hyphens)`,
    );
  }
  const endpoint = env.SELLO_S3_ENDPOINT ? env.SELLO_S3_ENDPOINT.replace(/\/+$/, '') : undefined;
  if (endpoint !== undefined && !/^https?:\/\/[^/?#\s]+$/.test(endpoint)) {
    problems.push(`SELLO_S3_ENDPOINT=${JSON.stringify(endpoint)}: expected an http(s) URL of the server, without a path`);
  }
  const region = str('SELLO_S3_REGION', 'us-east-1');
  if (!/^[a-z0-9-]{1,64}$/.test(region)) {
    problems.push(`SELLO_S3_REGION=${JSON.stringify(region)}: expected a region name such as us-east-1`);
  }
  const prefix = str('SELLO_S3_PREFIX', '');
  if (prefix && !/^[A-Za-z0-9!_.*'()-]+(\/[A-Za-z0-9!_.*'()-]+)*\/$/.test(prefix)) {
    problems.push(`SELLO_S3_PREFIX=${JSON.stringify(prefix)}: expected path segments ending in "/" (such as sello/blobs/), no leading "/"`);
  }
  const accessKeyId = env.SELLO_S3_ACCESS_KEY_ID || undefined;
  const secretAccessKey = env.SELLO_S3_SECRET_ACCESS_KEY || undefined;
  if ((accessKeyId === undefined) !== (secretAccessKey === undefined)) {
    problems.push('SELLO_S3_ACCESS_KEY_ID and SELLO_S3_SECRET_ACCESS_KEY: set both or neither (neither: the AWS SDK finds them)');
  }
  return {
    kind: 's3',
    s3: {
      endpoint,
      region,
      bucket,
      prefix,
      credentials: accessKeyId && secretAccessKey ? { accessKeyId, secretAccessKey } : undefined,
      forcePathStyle: bool('SELLO_S3_FORCE_PATH_STYLE', false),
      // S3 refuses parts under 5 MiB (but the last) and allows 10,000 of them.
      partBytes: int('SELLO_S3_PART_MB', 8, 5, 512) * 1024 * 1024,
    },
  };
}
