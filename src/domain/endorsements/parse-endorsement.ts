// The body of POST /api/document/{ticket}/endorse (decisions.md "Endorsements"), checked field by
// field so every refusal names what was wrong.
import { invalid } from '../errors.js';
import { isAuthority, isEmail, normalizeSignerData, type Authority } from '../documents/authorities.js';
import type { EndorsementType } from '../../store/schema.js';

export const ENDORSEMENT_TYPES = ['propiedad', 'procuracion', 'garantia'] as const;
const MAX_TEXT = 1000;
const MAX_NAME = 200;

export interface EndorsementRequest {
  type: EndorsementType;
  text: string;
  endorser: { name: string; authority: Authority; data: string };
  endorsee: { name: string; email: string | null; rfc: string | null };
  /** The box, when the caller places it; else the endorsement goes on the last page. */
  box: { page: unknown; rect: unknown } | null;
}

export function parseEndorsement(body: unknown): EndorsementRequest {
  const b = object(body, 'body');
  const key = endorsementKey(b);
  const e = object(b[key], key);
  if (typeof e.type !== 'string' || !(ENDORSEMENT_TYPES as readonly string[]).includes(e.type)) {
    throw invalid(`${key}.type`, `expected one of ${ENDORSEMENT_TYPES.map((t) => `"${t}"`).join(', ')}`);
  }
  const text = string(e.text, `${key}.text`, MAX_TEXT);
  const r = object(b.endorser, 'endorser');
  const endorserName = string(r.name, 'endorser.name', MAX_NAME);
  if (!isAuthority(r.authority)) {
    throw invalid('endorser.authority', 'expected EMAIL_LINK, EMAIL, SMS, WHATSAPP or SAT');
  }
  if (typeof r.data !== 'string') {
    throw invalid('endorser.data', `required: what identifies the endorser for ${r.authority}`);
  }
  const data = normalizeSignerData(r.authority, r.data);
  if (!data.ok) {
    throw invalid('endorser.data', data.rule);
  }
  const ee = object(b.endorsee, 'endorsee');
  const endorseeName = string(ee.name, 'endorsee.name', MAX_NAME);
  const email = optional(ee.email, 'endorsee.email');
  if (email !== null && !isEmail(email)) {
    throw invalid('endorsee.email', 'must be an email address');
  }
  const rfcRaw = optional(ee.rfc, 'endorsee.rfc');
  let rfc: string | null = null;
  if (rfcRaw !== null) {
    const n = normalizeSignerData('SAT', rfcRaw);
    if (!n.ok) {
      throw invalid('endorsee.rfc', 'must be a Mexican RFC (3 or 4 letters, a YYMMDD date, a 3-character homoclave)');
    }
    rfc = n.value;
  }
  // The next endorsement must come from the holder, known by the address or RFC named here.
  if (email === null && rfc === null) {
    throw invalid('endorsee', 'give the endorsee an email or an rfc: the next endorser is recognized as the holder by one of them');
  }
  const placed = b.page !== undefined || b.rect !== undefined;
  return {
    type: e.type as EndorsementType,
    text,
    endorser: { name: endorserName, authority: r.authority, data: data.value },
    endorsee: { name: endorseeName, email: email?.toLowerCase() ?? null, rfc },
    box: placed ? { page: b.page, rect: b.rect } : null,
  };
}

/**
 * The public JavaScript and PHP clients of the original service send the endorsement as
 * `endorsment` (decisions.md asks to accept that spelling, as the path alias does). Both keys at
 * once could disagree: refused, rather than one silently chosen.
 */
function endorsementKey(b: Record<string, unknown>): 'endorsement' | 'endorsment' {
  if (b.endorsement !== undefined && b.endorsment !== undefined) {
    throw invalid('endorsement', 'give endorsement or endorsment (the same object, as some clients spell it), not both');
  }
  return b.endorsment !== undefined ? 'endorsment' : 'endorsement';
}

function object(v: unknown, field: string): Record<string, unknown> {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) {
    throw invalid(field, 'required: an object');
  }
  return v as Record<string, unknown>;
}

function string(v: unknown, field: string, max: number): string {
  const s = typeof v === 'string' ? v.trim() : '';
  if (s.length === 0 || [...s].length > max) {
    throw invalid(field, `required: 1 to ${max} characters`);
  }
  return s;
}

function optional(v: unknown, field: string): string | null {
  if (v === undefined || v === null || v === '') {
    return null;
  }
  if (typeof v !== 'string' || v.length > 254) {
    throw invalid(field, 'must be a string of at most 254 characters');
  }
  return v.trim() || null;
}
