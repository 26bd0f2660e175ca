// A CERT sticker's `certificate_match` (decisions.md, "Own certificates"): the certificate must carry
// this value in this subject attribute, for signers a CA identifies by something other than their
// email (a national identifier in serialNumber, a uid). Only for CERT: other authorities never see a
// certificate of the signer's own.

/** The subject attribute a CERT signer's certificate must hold, and its value. */
export interface CertificateMatch {
  field: 'serialNumber' | 'uid' | 'email';
  value: string;
}

const FIELDS = ['serialNumber', 'uid', 'email'] as const;

type Read = { ok: true; value: CertificateMatch | null } | { ok: false; field: string; rule: string };

/** The sticker's certificate_match checked for its authority; null when absent. */
export function readCertificateMatch(authority: string, raw: unknown): Read {
  if (raw === undefined || raw === null) {
    return { ok: true, value: null };
  }
  if (authority !== 'CERT' && authority !== 'CSC') {
    return { ok: false, field: 'certificate_match', rule: `only for the CERT and CSC authorities, not ${authority}` };
  }
  if (typeof raw !== 'object' || Array.isArray(raw)) {
    return { ok: false, field: 'certificate_match', rule: 'expected an object {field, value}' };
  }
  const m = raw as Record<string, unknown>;
  if (typeof m.field !== 'string' || !(FIELDS as readonly string[]).includes(m.field)) {
    return { ok: false, field: 'certificate_match.field', rule: `expected one of ${FIELDS.join(', ')}` };
  }
  if (typeof m.value !== 'string' || m.value.trim() === '' || m.value.length > 256) {
    return { ok: false, field: 'certificate_match.value', rule: 'required: the value the attribute must hold, at most 256 characters' };
  }
  return { ok: true, value: { field: m.field as CertificateMatch['field'], value: m.value.trim() } };
}
