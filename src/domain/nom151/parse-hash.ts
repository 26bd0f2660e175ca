// A SHA-256 sent by a client: 64 hex digits, or its 32 bytes in Base64 (standard or URL-safe,
// padding optional). Anything else, including another hash's length, is refused naming the field.
import { invalid } from '../errors.js';

export function parseSha256(value: string, field: string): Buffer {
  if (value.trim() === '') {
    throw invalid(field, 'required: a SHA-256 as 64 hex digits or 32 bytes in Base64');
  }
  const text = value.trim();
  if (/^[0-9a-fA-F]{64}$/.test(text)) {
    return Buffer.from(text, 'hex');
  }
  if (/^[A-Za-z0-9+/]{43}=?$/.test(text) || /^[A-Za-z0-9_-]{43}=?$/.test(text)) {
    const bytes = Buffer.from(text.replace(/=$/, ''), text.includes('-') || text.includes('_') ? 'base64url' : 'base64');
    // 43 characters carry 258 bits: the last character must leave the two extra bits zero.
    if (
      bytes.length === 32 &&
      bytes.toString('base64').replace(/=$/, '') === text.replace(/=$/, '').replace(/-/g, '+').replace(/_/g, '/')
    ) {
      return bytes;
    }
  }
  throw invalid(field, 'expected a SHA-256: 64 hex digits or 32 bytes in Base64 (44 characters)');
}
