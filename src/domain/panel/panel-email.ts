// A panel user's address: checked and lower-cased once, so "Ana@X.com" and "ana@x.com" are one user.
import { invalid } from '../errors.js';

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

export function panelEmail(value: unknown, field = 'email'): string {
  if (typeof value !== 'string' || value.length > 254 || !EMAIL.test(value.trim())) {
    throw invalid(field, 'expected an email address');
  }
  return value.trim().toLowerCase();
}
