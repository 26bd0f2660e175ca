import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
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
  it('PDF decompression: a budget of 256 MB by default; the removed ratio setting is reported at start, not silently ignored', () => {
    expect(loadConfig({}).pdfJail.inflate).toEqual({ maxTotalBytes: 256 * 1024 * 1024 });
    expect(loadConfig({ SELLO_PDF_INFLATE_MB: '1024' }).pdfJail.inflate.maxTotalBytes).toBe(1024 * 1024 * 1024);
    expect(() => loadConfig({ SELLO_PDF_INFLATE_RATIO: '200' })).toThrow(
      /SELLO_PDF_INFLATE_RATIO: no longer supported.*SELLO_PDF_INFLATE_MB/,
    );
  });

  it('refuses private URLs in production', () => {
    expect(() => loadConfig({ NODE_ENV: 'production', SELLO_ALLOW_PRIVATE_URLS: 'true' })).toThrow(/production/);
  });
  it('reads scheme words as a lower-cased list', () => {
    expect(loadConfig({ SELLO_AUTH_SCHEMES: 'svc, Firma' }).authSchemes).toEqual(['svc', 'firma']);
  });
  it('job runners beat every 5 s and are dead after 20 s by default; dead-after must cover two heartbeats', () => {
    expect(loadConfig({}).workers).toEqual({ heartbeatMs: 5000, deadAfterMs: 20_000 });
    expect(loadConfig({ SELLO_WORKER_HEARTBEAT_MS: '1000', SELLO_WORKER_DEAD_AFTER_MS: '2000' }).workers).toEqual({
      heartbeatMs: 1000,
      deadAfterMs: 2000,
    });
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
