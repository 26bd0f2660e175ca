import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';

describe('loadConfig', () => {
  it('has the documented defaults', () => {
    const c = loadConfig({});
    expect(c.port).toBe(3000);
    expect(c.publicUrl).toBe('http://localhost:3000');
    expect(c.authSchemes).toEqual(['svc']);
    expect(c.allowPrivateUrls).toBe(false);
    expect(c.limits.documentBytes).toBe(25 * 1024 * 1024);
    expect(c.limits.requestsPerMinute).toBe(600);
  });
  it('lists every bad variable at once', () => {
    try {
      loadConfig({ PORT: 'eighty', SELLO_PUBLIC_URL: 'ftp://x', SELLO_MASTER_KEY: 'c2hvcnQ=', SELLO_ALLOW_PRIVATE_URLS: 'maybe' });
      expect.unreachable();
    } catch (err) {
      expect(err).toBeInstanceOf(ConfigError);
      const problems = (err as ConfigError).problems.join('\n');
      expect(problems).toMatch(/PORT/);
      expect(problems).toMatch(/SELLO_PUBLIC_URL/);
      expect(problems).toMatch(/SELLO_MASTER_KEY/);
      expect(problems).toMatch(/SELLO_ALLOW_PRIVATE_URLS/);
    }
  });
  it('a wholly bad environment: every problem listed, in the order of the settings', () => {
    const env = {
      NODE_ENV: 'staging',
      PORT: '70000',
      SELLO_PUBLIC_URL: 'ftp://x?y',
      DATABASE_URL: 'mysql://db',
      SELLO_AUTH_SCHEMES: 'sv c',
      SELLO_MASTER_KEY: 'c2hvcnQ=',
      SELLO_ALLOW_PRIVATE_URLS: 'maybe',
      SELLO_MAX_DOCUMENT_MB: '0',
      SELLO_MAX_JSON_MB: 'x',
      SELLO_MAX_PAGES: '-1',
      SELLO_MAX_SIGNERS: '1001',
      SELLO_MAX_STICKERS: '0',
      SELLO_MAX_SET_DOCUMENTS: '0',
      SELLO_RATE_LIMIT_PER_MINUTE: '-5',
      SELLO_MAX_ATTACHMENT_KB: '0',
      SELLO_PKI_ROOT_CERT: 'root.pem',
      SELLO_PKI_ISSUING_CERT: 'ca.pem',
      SELLO_PKI_PKCS12: 'ca.p12',
      SELLO_TSA_POLICY_OID: 'x.1',
      SELLO_SMTP_URL: 'http://mail',
      SELLO_TSA_URL: 'ldap://tsa',
      SELLO_NOM151_USER: 'u',
      SELLO_SAT_OCSP_URL: 'ldap://sat',
      SELLO_TWILIO_ACCOUNT_SID: 'AC1',
      SELLO_TWILIO_BASE_URL: 'nope',
      SELLO_TWILIO_SMS_FROM: '123',
      SELLO_META_ACCESS_TOKEN: 't',
      SELLO_META_API_VERSION: '21',
      SELLO_META_BASE_URL: 'x',
      SELLO_WORKER_HEARTBEAT_MS: '50',
      SELLO_WORKER_DEAD_AFTER_MS: '100',
      SELLO_DEFAULT_LANGUAGE: 'fr',
      SELLO_ACCOUNT_NAME: ' ',
      SELLO_EMBEDDED_PG_PORT: '-1',
      SELLO_URL_FETCH_TIMEOUT_MS: '1',
      SELLO_LTA_RENEW_MARGIN_DAYS: '0',
      SELLO_SAT_PREPARE_MINUTES: '0',
      SELLO_IDENTITY_IMAGE_MB: '0',
      SELLO_PDF_WORKERS: '0',
      SELLO_PDF_QUEUE: '-1',
      SELLO_PDF_TIMEOUT_MS: '1',
      SELLO_PDF_MEMORY_MB: '1',
      SELLO_PDF_INFLATE_MB: '0',
      SELLO_SIGNER_CERT_DAYS: '0',
      SELLO_RENDER_PAGES: '0',
      SELLO_DOCX_CONCURRENCY: '0',
      SELLO_RENDER_TIMEOUT_MS: '1',
      SELLO_SIGNER_KEY: 'dsa',
      SELLO_SIGNER_KEY_POOL: '0',
      SELLO_SIGNER_KEY_THREADS: '5',
      SELLO_LOG_LEVEL: 'loud',
      SELLO_LOG_FORMAT: 'xml',
      SELLO_PDF_INFLATE_RATIO: '100',
    };
    expect(() => loadConfig(env)).toThrow(ConfigError);
    try {
      loadConfig(env);
    } catch (err) {
      expect((err as ConfigError).problems).toEqual([
        'NODE_ENV="staging": expected development, production or test',
        'PORT="70000": expected a whole number from 0 to 65535',
        'SELLO_PUBLIC_URL="ftp://x?y": expected an absolute http(s) URL without query',
        'DATABASE_URL: expected a postgres:// or postgresql:// URL',
        'SELLO_AUTH_SCHEMES: expected a comma-separated list of words (HTTP token characters)',
        'SELLO_MASTER_KEY: expected 32 random bytes in Base64 (openssl rand -base64 32)',
        'SELLO_ALLOW_PRIVATE_URLS="maybe": expected true or false',
        'SELLO_MAX_DOCUMENT_MB="0": expected a whole number from 1 to 1024',
        'SELLO_MAX_JSON_MB="x": expected a whole number from 1 to 2048',
        'SELLO_MAX_PAGES="-1": expected a whole number from 1 to 100000',
        'SELLO_MAX_SIGNERS="1001": expected a whole number from 1 to 1000',
        'SELLO_MAX_STICKERS="0": expected a whole number from 1 to 10000',
        'SELLO_MAX_SET_DOCUMENTS="0": expected a whole number from 1 to 10000',
        'SELLO_RATE_LIMIT_PER_MINUTE="-5": expected a whole number from 0 to 10000000',
        'SELLO_MAX_ATTACHMENT_KB="0": expected a whole number from 1 to 1048576',
        'SELLO_PKI_ROOT_CERT, SELLO_PKI_ISSUING_CERT and SELLO_PKI_ISSUING_KEY: set all three (PEM files of your own CA) or none',
        'SELLO_TSA_POLICY_OID="x.1": expected a dotted object identifier',
        'SELLO_SMTP_URL: expected smtp://[user:password@]host[:port] or smtps://...',
        'SELLO_TSA_URL: expected an http(s) URL of an RFC 3161 time-stamp authority',
        'SELLO_TSA_TRUST_PEM: required with SELLO_TSA_URL (a PEM file with the root the TSA chains to)',
        "SELLO_NOM151_USER: set only with SELLO_NOM151_URL (the provider's RFC 3161 URL)",
        'SELLO_SAT_OCSP_URL: expected an http(s) URL of the SAT OCSP responder',
        'SELLO_TWILIO_ACCOUNT_SID and SELLO_TWILIO_AUTH_TOKEN: set both or neither',
        'SELLO_TWILIO_BASE_URL="nope": expected an http(s) URL',
        'SELLO_TWILIO_SMS_FROM="123": expected a phone number in E.164 form (+ and 7 to 15 digits)',
        "SELLO_META_PHONE_NUMBER_ID, SELLO_META_APP_SECRET, SELLO_META_VERIFY_TOKEN: required with SELLO_META_ACCESS_TOKEN (Meta's WhatsApp Cloud API)",
        'SELLO_META_API_VERSION="21": expected a Graph API version such as v21.0',
        'SELLO_META_BASE_URL="x": expected an http(s) URL',
        'SELLO_WORKER_HEARTBEAT_MS="50": expected a whole number from 100 to 60000',
        'SELLO_WORKER_DEAD_AFTER_MS="100": expected a whole number from 200 to 3600000',
        'SELLO_DEFAULT_LANGUAGE="fr": expected es or en',
        'SELLO_ACCOUNT_NAME: expected 1 to 200 characters',
        'SELLO_EMBEDDED_PG_PORT="-1": expected a whole number from 0 to 65535',
        'SELLO_URL_FETCH_TIMEOUT_MS="1": expected a whole number from 100 to 600000',
        'SELLO_LTA_RENEW_MARGIN_DAYS="0": expected a whole number from 1 to 3650',
        'SELLO_SAT_PREPARE_MINUTES="0": expected a whole number from 1 to 60',
        'SELLO_IDENTITY_IMAGE_MB="0": expected a whole number from 1 to 20',
        'SELLO_PDF_WORKERS="0": expected a whole number from 1 to 64',
        'SELLO_PDF_QUEUE="-1": expected a whole number from 0 to 10000',
        'SELLO_PDF_TIMEOUT_MS="1": expected a whole number from 100 to 600000',
        'SELLO_PDF_MEMORY_MB="1": expected a whole number from 64 to 16384',
        'SELLO_PDF_INFLATE_MB="0": expected a whole number from 1 to 16384',
        'SELLO_SIGNER_CERT_DAYS="0": expected a whole number from 1 to 3650',
        'SELLO_SIGNER_KEY_POOL="0": expected a whole number from 1 to 1024',
        'SELLO_SIGNER_KEY_THREADS="5": expected a whole number from 1 to 4',
        'SELLO_RENDER_PAGES="0": expected a whole number from 1 to 64',
        'SELLO_DOCX_CONCURRENCY="0": expected a whole number from 1 to 32',
        'SELLO_RENDER_TIMEOUT_MS="1": expected a whole number from 100 to 600000',
        'SELLO_SIGNER_KEY="dsa": expected ecdsa-p256 or rsa-2048',
        'SELLO_LOG_LEVEL="loud": expected fatal, error, warn, info, debug, trace or silent',
        'SELLO_LOG_FORMAT="xml": expected auto, json or pretty',
        'SELLO_PDF_INFLATE_RATIO: no longer supported (a scan with blank pages inflates 1,000 times and is no bomb); decompression is bounded by SELLO_PDF_INFLATE_MB: remove it',
      ]);
    }
  });
  it('signer certificates: RSA-2048 for five years by default; ECDSA P-256 and other lifetimes on request, nonsense refused', () => {
    expect(loadConfig({}).pki).toMatchObject({ signerKey: 'rsa-2048', signerCertDays: 1826 });
    expect(loadConfig({ SELLO_SIGNER_KEY: 'ecdsa-p256', SELLO_SIGNER_CERT_DAYS: '30' }).pki).toMatchObject({
      signerKey: 'ecdsa-p256',
      signerCertDays: 30,
    });
    expect(() => loadConfig({ SELLO_SIGNER_KEY: 'dsa' })).toThrow(/SELLO_SIGNER_KEY="dsa": expected ecdsa-p256 or rsa-2048/);
    expect(() => loadConfig({ SELLO_SIGNER_CERT_DAYS: '0' })).toThrow(/SELLO_SIGNER_CERT_DAYS/);
    expect(() => loadConfig({ SELLO_SIGNER_CERT_DAYS: '4000' })).toThrow(/SELLO_SIGNER_CERT_DAYS/);
  });
  it('signer key pool: 8 pairs per key type and one refill thread by default; the operator sets both, within bounds', () => {
    expect(loadConfig({}).pki).toMatchObject({ signerKeyPool: 8, signerKeyThreads: 1 });
    expect(loadConfig({ SELLO_SIGNER_KEY_POOL: '256', SELLO_SIGNER_KEY_THREADS: '2' }).pki).toMatchObject({
      signerKeyPool: 256,
      signerKeyThreads: 2,
    });
    expect(() => loadConfig({ SELLO_SIGNER_KEY_POOL: '1025' })).toThrow(
      /SELLO_SIGNER_KEY_POOL="1025": expected a whole number from 1 to 1024/,
    );
    expect(() => loadConfig({ SELLO_SIGNER_KEY_POOL: 'deep' })).toThrow(/SELLO_SIGNER_KEY_POOL="deep"/);
    expect(() => loadConfig({ SELLO_SIGNER_KEY_THREADS: '0' })).toThrow(
      /SELLO_SIGNER_KEY_THREADS="0": expected a whole number from 1 to 4/,
    );
  });
  it('SAT e.firma: off without SELLO_SAT_TRUST_PEM; a missing or empty file and a bad OCSP URL are listed', () => {
    expect(loadConfig({}).sat).toEqual({ trustedDer: [], ocspUrl: undefined, prepareMinutes: 5 });
    const dir = mkdtempSync(join(tmpdir(), 'sello-config-'));
    try {
      writeFileSync(join(dir, 'empty.pem'), 'no certificate here\n');
      expect(() => loadConfig({ SELLO_SAT_TRUST_PEM: join(dir, 'missing.pem') })).toThrow(/SELLO_SAT_TRUST_PEM=.*missing\.pem/);
      expect(() => loadConfig({ SELLO_SAT_TRUST_PEM: join(dir, 'empty.pem') })).toThrow(/holds no certificate/);
      expect(() => loadConfig({ SELLO_SAT_OCSP_URL: 'ldap://sat' })).toThrow(/SELLO_SAT_OCSP_URL/);
      expect(() => loadConfig({ SELLO_SAT_PREPARE_MINUTES: '0' })).toThrow(/SELLO_SAT_PREPARE_MINUTES/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
  it('CERT trust list: off without SELLO_CERT_TRUST_PEM; a PEM file, or a directory of *.pem and *.crt files; an empty one is listed', () => {
    expect(loadConfig({}).cert).toEqual({ trustedDer: [] });
    const dir = mkdtempSync(join(tmpdir(), 'sello-config-'));
    const pem = (n: number) => {
      const der = Buffer.from(`certificate ${n}`);
      return `-----BEGIN CERTIFICATE-----\n${der.toString('base64')}\n-----END CERTIFICATE-----\n`;
    };
    try {
      mkdirSync(join(dir, 'list'));
      writeFileSync(join(dir, 'list', 'a.pem'), pem(1) + pem(2));
      writeFileSync(join(dir, 'list', 'b.crt'), pem(3));
      writeFileSync(join(dir, 'list', 'notes.txt'), pem(4));
      const fromDir = loadConfig({ SELLO_CERT_TRUST_PEM: join(dir, 'list') }).cert.trustedDer.map((d) => d.toString());
      expect(fromDir).toEqual(['certificate 1', 'certificate 2', 'certificate 3']);
      expect(loadConfig({ SELLO_CERT_TRUST_PEM: join(dir, 'list', 'b.crt') }).cert.trustedDer.map((d) => d.toString())).toEqual([
        'certificate 3',
      ]);
      mkdirSync(join(dir, 'empty'));
      expect(() => loadConfig({ SELLO_CERT_TRUST_PEM: join(dir, 'empty') })).toThrow(/SELLO_CERT_TRUST_PEM=.*no certificate found/);
      expect(() => loadConfig({ SELLO_CERT_TRUST_PEM: join(dir, 'missing') })).toThrow(/SELLO_CERT_TRUST_PEM=.*missing/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
  it('CSC providers: a JSON array of named OAuth clients; each bad entry is listed by index', () => {
    expect(loadConfig({}).csc).toEqual({ providers: [], trustedDer: [] });
    const one = { name: 'TSP', base_url: 'https://tsp.example.com/csc/v2/', client_id: 'id', client_secret: 'secret' };
    expect(loadConfig({ SELLO_CSC_PROVIDERS: JSON.stringify([one]) }).csc.providers).toEqual([
      { name: 'TSP', baseUrl: 'https://tsp.example.com/csc/v2', clientId: 'id', clientSecret: 'secret' },
    ]);
    expect(() => loadConfig({ SELLO_CSC_PROVIDERS: 'not json' })).toThrow(/SELLO_CSC_PROVIDERS: expected a JSON array/);
    expect(() => loadConfig({ SELLO_CSC_PROVIDERS: JSON.stringify([one, { name: 'B' }]) })).toThrow(
      /SELLO_CSC_PROVIDERS\[1\]: missing base_url, client_id, client_secret/,
    );
    expect(() => loadConfig({ SELLO_CSC_PROVIDERS: JSON.stringify([{ ...one, base_url: 'ftp://x' }]) })).toThrow(/http\(s\) URLs/);
    expect(() => loadConfig({ SELLO_CSC_PROVIDERS: JSON.stringify([one, one]) })).toThrow(/same name/);
  });
  it('PDF decompression: a budget of 256 MB by default; the removed ratio setting is reported at start, not silently ignored', () => {
    expect(loadConfig({}).pdfJail.inflate).toEqual({ maxTotalBytes: 256 * 1024 * 1024 });
    expect(loadConfig({ SELLO_PDF_INFLATE_MB: '1024' }).pdfJail.inflate.maxTotalBytes).toBe(1024 * 1024 * 1024);
    expect(() => loadConfig({ SELLO_PDF_INFLATE_RATIO: '200' })).toThrow(
      /SELLO_PDF_INFLATE_RATIO: no longer supported.*SELLO_PDF_INFLATE_MB/,
    );
  });

  it('the JSON body limit follows the document limit unless it is set: a document in Base64 fits', () => {
    expect(loadConfig({}).limits.jsonBodyBytes).toBe(36 * 1024 * 1024);
    expect(loadConfig({ SELLO_MAX_DOCUMENT_MB: '64' }).limits.jsonBodyBytes).toBe(88 * 1024 * 1024);
    expect(loadConfig({ SELLO_MAX_DOCUMENT_MB: '1024' }).limits.jsonBodyBytes).toBe(1368 * 1024 * 1024);
    expect(loadConfig({ SELLO_MAX_DOCUMENT_MB: '64', SELLO_MAX_JSON_MB: '40' }).limits.jsonBodyBytes).toBe(40 * 1024 * 1024);
  });
  it('refuses private URLs in production', () => {
    expect(() => loadConfig({ NODE_ENV: 'production', SELLO_ALLOW_PRIVATE_URLS: 'true' })).toThrow(/production/);
  });
  it('reads scheme words as a lower-cased list', () => {
    expect(loadConfig({ SELLO_AUTH_SCHEMES: 'svc, Firma' }).authSchemes).toEqual(['svc', 'firma']);
  });
  it('job runners beat every 5 s and are dead after 20 s by default; dead-after must cover two heartbeats', () => {
    expect(loadConfig({}).workers).toEqual({ heartbeatMs: 5000, deadAfterMs: 20_000, healthPort: 0 });
    expect(
      loadConfig({ SELLO_WORKER_HEARTBEAT_MS: '1000', SELLO_WORKER_DEAD_AFTER_MS: '2000', SELLO_WORKER_HEALTH_PORT: '3001' }).workers,
    ).toEqual({
      heartbeatMs: 1000,
      deadAfterMs: 2000,
      healthPort: 3001,
    });
    expect(() => loadConfig({ SELLO_WORKER_HEALTH_PORT: '70000' })).toThrow(/SELLO_WORKER_HEALTH_PORT/);
    expect(() => loadConfig({ SELLO_WORKER_HEARTBEAT_MS: '5000', SELLO_WORKER_DEAD_AFTER_MS: '9999' })).toThrow(
      /SELLO_WORKER_DEAD_AFTER_MS=9999: must be at least twice SELLO_WORKER_HEARTBEAT_MS \(5000\)/,
    );
    expect(() => loadConfig({ SELLO_WORKER_HEARTBEAT_MS: '0' })).toThrow(/SELLO_WORKER_HEARTBEAT_MS="0"/);
  });
  it('identity verification: 5 MB images kept 30 days; a provider with all three settings or none', () => {
    expect(loadConfig({}).identity).toEqual({
      maxImageBytes: 5 * 1024 * 1024,
      evidenceDays: 30,
      checks: { qualityTimeoutMs: 15000, ocrTimeoutMs: 60000, memoryMb: 512, faceTimeoutMs: 30000, faceWasmMb: 768 },
    });
    expect(
      loadConfig({
        SELLO_IDENTITY_OCR_TIMEOUT_MS: '20000',
        SELLO_IDENTITY_CHECK_MEMORY_MB: '256',
        SELLO_IDENTITY_FACE_TIMEOUT_MS: '9000',
        SELLO_IDENTITY_FACE_WASM_MB: '1024',
      }).identity.checks,
    ).toEqual({ qualityTimeoutMs: 15000, ocrTimeoutMs: 20000, memoryMb: 256, faceTimeoutMs: 9000, faceWasmMb: 1024 });
    expect(() => loadConfig({ SELLO_IDENTITY_CHECK_MEMORY_MB: '64' })).toThrow(/SELLO_IDENTITY_CHECK_MEMORY_MB="64"/);
    expect(() => loadConfig({ SELLO_IDENTITY_FACE_WASM_MB: '100' })).toThrow(/SELLO_IDENTITY_FACE_WASM_MB="100"/);
    const full = {
      SELLO_IDENTITY_PROVIDER_URL: 'https://verify.example.com/v1/',
      SELLO_IDENTITY_PROVIDER_KEY: 'k',
      SELLO_IDENTITY_PROVIDER_SECRET: 's',
    };
    expect(loadConfig(full).identity.provider).toEqual({
      url: 'https://verify.example.com/v1',
      apiKey: 'k',
      callbackSecret: 's',
      name: 'external',
    });
    expect(() => loadConfig({ SELLO_IDENTITY_PROVIDER_URL: 'https://verify.example.com' })).toThrow(
      /set all three or none \(missing: SELLO_IDENTITY_PROVIDER_KEY, SELLO_IDENTITY_PROVIDER_SECRET\)/,
    );
    expect(() => loadConfig({ ...full, SELLO_IDENTITY_PROVIDER_URL: 'ftp://x' })).toThrow(/SELLO_IDENTITY_PROVIDER_URL="ftp:\/\/x"/);
    expect(() => loadConfig({ SELLO_IDENTITY_EVIDENCE_DAYS: '0' })).toThrow(/SELLO_IDENTITY_EVIDENCE_DAYS="0"/);
  });
});
