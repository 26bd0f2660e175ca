// The hash of a history entry, shared by the writer (append-history.ts) and the checker
// (verify-history.ts), so both hash exactly the same bytes. Pure: no database, no clock.
//
// hash = SHA-256 (lowercase hex) of the canonical JSON of
//   {action, actor, at, details, document, ip, prev_hash, seq}
// Canonical JSON is RFC 8785 (JCS) for the values a history holds: object keys sorted by UTF-16
// code units, no whitespace, strings and numbers as ECMAScript's JSON.stringify writes them. The
// order PostgreSQL's jsonb gives the keys back in does not matter, and any reader can recompute it.
import { createHash } from 'node:crypto';

/** prev_hash of a document's first entry. */
export const GENESIS_HASH = '0'.repeat(64);

/** What an entry's hash covers. */
export interface HashedEntry {
  /** The document's ticket: an entry cannot be moved to another document's chain. */
  document: string;
  seq: number;
  at: Date;
  action: string;
  actor: string;
  ip: string | null;
  details: unknown;
  prev_hash: string;
}

export function entryHash(e: HashedEntry): string {
  const canonical = canonicalJson({
    document: e.document,
    seq: e.seq,
    at: e.at.toISOString(),
    action: e.action,
    actor: e.actor,
    ip: e.ip,
    details: e.details,
    prev_hash: e.prev_hash,
  });
  return createHash('sha256').update(canonical, 'utf8').digest('hex');
}

/** RFC 8785 serialization of a JSON value; anything JSON cannot carry is refused, not dropped. */
export function canonicalJson(value: unknown): string {
  if (value === null) {
    return 'null';
  }
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return JSON.stringify(value);
    case 'number':
      if (!Number.isFinite(value)) {
        throw new TypeError(`canonicalJson: ${value} is not a JSON number`);
      }
      return JSON.stringify(value);
    case 'object': {
      if (Array.isArray(value)) {
        return `[${value.map(canonicalJson).join(',')}]`;
      }
      const proto = Object.getPrototypeOf(value) as unknown;
      if (proto !== Object.prototype && proto !== null) {
        throw new TypeError('canonicalJson: only plain objects, arrays and JSON scalars');
      }
      const o = value as Record<string, unknown>;
      const keys = Object.keys(o).sort();
      return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson(o[k])}`).join(',')}}`;
    }
    default:
      throw new TypeError(`canonicalJson: a ${typeof value} is not a JSON value`);
  }
}
