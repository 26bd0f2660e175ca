// The placeholders of a draft prepared for a bulk run: every `{{row.<path>}}` in its strings (a
// signer's name and data, the document's name, a template's values…), each with what its value
// must be, so that the page can judge a row before the service does. The service fills them the
// same way (src/domain/bulk/row-payload.ts): the same pattern, the same dotted paths.
import { type Authority, isAuthority } from '../../../../src/domain/documents/authorities.js';

const PLACEHOLDER = /\{\{\s*row\.([A-Za-z0-9_.-]+)\s*\}\}/g;
const WHOLE = /^\{\{\s*row\.([A-Za-z0-9_.-]+)\s*\}\}$/;
/** Keys whose value is a number: a placeholder standing alone there needs a number in its cell. */
const NUMERIC_KEYS = new Set(['page', 'lx', 'ly', 'tx', 'ty']);

export interface Placeholder {
  /** The dotted path after `row.`: `email`, `fields.nombre`. */
  path: string;
  /** Stands alone where a number goes (a box's page or corner): its cell is sent as a number. */
  numeric: boolean;
}

/** A signer of the draft: where its name and data come from, to show and to check per row. */
export interface DraftSigner {
  index: number;
  authority: string;
  name: string;
  data: string;
  email: string | undefined;
}

export function placeholdersIn(s: string): string[] {
  return [...s.matchAll(PLACEHOLDER)].map((m) => m[1]);
}

/** Every placeholder of the payload, in the order they first appear. The PDF itself is not read. */
export function draftPlaceholders(payload: Record<string, unknown>): Placeholder[] {
  const found = new Map<string, Placeholder>();
  const walk = (value: unknown, key: string) => {
    if (typeof value === 'string') {
      const whole = WHOLE.exec(value);
      for (const path of placeholdersIn(value)) {
        const p = found.get(path) ?? { path, numeric: false };
        p.numeric ||= whole !== null && NUMERIC_KEYS.has(key);
        found.set(path, p);
      }
    } else if (Array.isArray(value)) {
      for (const v of value) {
        walk(v, key);
      }
    } else if (typeof value === 'object' && value !== null) {
      for (const [k, v] of Object.entries(value)) {
        walk(v, k);
      }
    }
  };
  for (const [k, v] of Object.entries(payload)) {
    if (k !== 'b64_doc') {
      walk(v, k);
    }
  }
  return [...found.values()];
}

/** The draft's signers, as its stickers name them. */
export function draftSigners(payload: Record<string, unknown>): DraftSigner[] {
  const stickers = Array.isArray(payload.stickers) ? payload.stickers : [];
  return stickers.map((raw, index) => {
    const s = (typeof raw === 'object' && raw !== null ? raw : {}) as Record<string, unknown>;
    const text = (v: unknown) => (typeof v === 'string' ? v : '');
    return {
      index,
      authority: text(s.authority),
      name: text(s.name),
      data: text(s.data),
      email: typeof s.email === 'string' ? s.email : undefined,
    };
  });
}

/** `s` with each placeholder replaced by `lookup(path)` (undefined: left as it was). */
export function fillText(s: string, lookup: (path: string) => string | undefined): string {
  return s.replace(PLACEHOLDER, (m, path: string) => lookup(path) ?? m);
}

export function authorityOf(signer: DraftSigner): Authority | undefined {
  return isAuthority(signer.authority) ? signer.authority : undefined;
}
