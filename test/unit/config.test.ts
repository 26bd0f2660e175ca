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
  it('refuses private URLs in production', () => {
    expect(() => loadConfig({ NODE_ENV: 'production', SELLO_ALLOW_PRIVATE_URLS: 'true' })).toThrow(/production/);
  });
  it('reads scheme words as a lower-cased list', () => {
    expect(loadConfig({ SELLO_AUTH_SCHEMES: 'svc, Firma' }).authSchemes).toEqual(['svc', 'firma']);
  });
});
