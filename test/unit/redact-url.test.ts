// What request logs keep of a URL: never a credential in the path.
import { describe, expect, it } from 'vitest';
import { redactUrl } from '../../src/http/app.js';

const token = 'Zm9vYmFyYmF6cXV4Zm9vYmFyYmF6cXV4Zm9vYmFyYmE';

describe('redactUrl', () => {
  it.each([
    [`/sign/${token}`, '/sign/…'],
    [`/sign/api/${token}/sign`, '/sign/api/…/sign'],
    [`/sign/set/${token}`, '/sign/set/…'],
    [`/sign/api/set/${token}/otp`, '/sign/api/set/…/otp'],
    [`/download/${token}`, '/download/…'],
    [`/certified-email/download/${token}`, '/certified-email/download/…'],
    [`/certified-email/open/${token}`, '/certified-email/open/…'],
    ['/api/document?from=1&to=2', '/api/document?…'],
    ['/sign/api/document/1f0e-ticket/link', '/sign/api/document/1f0e-ticket/link'],
  ])('%s → %s', (url, logged) => {
    expect(redactUrl(url)).toBe(logged);
    expect(redactUrl(url)).not.toContain(token);
  });
});
