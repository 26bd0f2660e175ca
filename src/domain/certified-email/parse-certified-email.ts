// Checks `certified_email: {to, subject, message}` of the create payload. One recipient: the
// evidence (delivery, open, download) is kept per message, and a message to one address is the
// only one whose open or download can be said to be that person's.
import { invalid } from '../errors.js';
import { isEmail } from '../documents/authorities.js';
import { CERTIFIED_SUBJECT_MAX, CertifiedEmailInput } from '../../schemas/certified-email.js';

const KNOWN = new Set(Object.keys(CertifiedEmailInput.properties));

/**
 * The recipient, subject and message as sent, and warnings for unknown keys. The schema checked
 * the types and lengths; these are the rules it cannot say with the same answer: the house's rule
 * for an address, a subject that is not blank and fits in one header line, no NUL in the body.
 */
export function parseCertifiedEmail(v: CertifiedEmailInput): { input: CertifiedEmailInput; warnings: string[] } {
  if (!isEmail(v.to.trim())) {
    throw invalid('certified_email.to', 'expected one email address (e.g. ana@example.com)');
  }
  if (v.subject.trim() === '') {
    throw invalid('certified_email.subject', `expected a string of 1 to ${CERTIFIED_SUBJECT_MAX} characters`);
  }
  // A line break in a header would be folded or refused by mail servers: one line only.
  if (hasControl(v.subject)) {
    throw invalid('certified_email.subject', 'must be one line, without control characters');
  }
  if (v.message.includes(String.fromCharCode(0))) {
    throw invalid('certified_email.message', 'must not contain NUL characters');
  }
  const warnings = Object.keys(v)
    .filter((k) => !KNOWN.has(k))
    .map((k) => `certified_email.${k}: unknown key; ignored`);
  return { input: { to: v.to.trim().toLowerCase(), subject: v.subject.trim(), message: v.message }, warnings };
}

/** A C0 control character (line breaks included) or DEL. */
function hasControl(s: string): boolean {
  for (let i = 0; i < s.length; i++) {
    const code = s.charCodeAt(i);
    if (code < 0x20 || code === 0x7f) {
      return true;
    }
  }
  return false;
}
