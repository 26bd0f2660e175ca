// The signer verification methods (decisions.md "Authorities") and the shape of `data` each takes.

export const AUTHORITIES = ['EMAIL_LINK', 'EMAIL', 'SMS', 'WHATSAPP', 'SAT', 'CERT', 'CSC'] as const;
export type Authority = (typeof AUTHORITIES)[number];

export function isAuthority(v: unknown): v is Authority {
  return typeof v === 'string' && (AUTHORITIES as readonly string[]).includes(v);
}

// Pragmatic address check (RFC 5322 is far wider than what mail servers deliver to): one @, a
// local part without spaces, a domain with a dot and no empty labels.
const EMAIL = /^[^\s@"<>()[\],;:]+@(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.)+[A-Za-z]{2,63}$/;
// E.164: '+', country code not starting with 0, at most 15 digits in all.
const E164 = /^\+[1-9]\d{6,14}$/;
// Mexican RFC: 4 letters (persons) or 3 (companies), birth or founding date YYMMDD, 3-char homoclave.
const RFC = /^([A-ZÑ&]{3,4})(\d{2})(\d{2})(\d{2})([A-Z\d]{2}[A\d])$/;

export function isEmail(v: string): boolean {
  return v.length <= 254 && EMAIL.test(v);
}

/**
 * Checks `data` for the authority and returns its canonical form (emails lower-cased, RFC
 * upper-cased), or a description of the rule it breaks.
 */
export function normalizeSignerData(authority: Authority, data: string): { ok: true; value: string } | { ok: false; rule: string } {
  const v = data.trim();
  switch (authority) {
    case 'EMAIL_LINK':
    case 'EMAIL':
    case 'CERT':
    case 'CSC':
      return isEmail(v) ? { ok: true, value: v.toLowerCase() } : { ok: false, rule: `data must be an email address for ${authority}` };
    case 'SMS':
    case 'WHATSAPP':
      return E164.test(v)
        ? { ok: true, value: v }
        : { ok: false, rule: `data must be a phone number in E.164 form (+ and 7 to 15 digits) for ${authority}` };
    case 'SAT': {
      const up = v.toUpperCase();
      const m = RFC.exec(up);
      const month = m ? Number(m[3]) : 0;
      const day = m ? Number(m[4]) : 0;
      return m && month >= 1 && month <= 12 && day >= 1 && day <= 31
        ? { ok: true, value: up }
        : { ok: false, rule: 'data must be a Mexican RFC (3 or 4 letters, a YYMMDD date, a 3-character homoclave) for SAT' };
    }
  }
}
