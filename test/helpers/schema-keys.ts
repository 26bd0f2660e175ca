// Which properties of a value a response schema would drop. Fastify serializes a response with
// fast-json-stringify, which writes only the properties an object schema lists (unless it allows
// additional ones): a field added to a domain result and not to its schema silently vanishes.

type Schema = Record<string, unknown>;

/** Paths (firmas[0].ocsp.signer) of every property of `value` that `schema` does not let through. */
export function droppedKeys(schema: unknown, value: unknown, path = ''): string[] {
  const s = (schema ?? {}) as Schema;
  if (value === null || value === undefined) {
    return [];
  }
  for (const key of ['anyOf', 'oneOf'] as const) {
    const branches = s[key] as Schema[] | undefined;
    if (branches) {
      // The branch the value takes; for an object, the object branch with the fewest drops.
      const fitting = branches.filter((b) => fits(b, value));
      const results = (fitting.length ? fitting : branches).map((b) => droppedKeys(b, value, path));
      return results.reduce((best, r) => (r.length < best.length ? r : best));
    }
  }
  if (s.allOf) {
    // Drops are what no part lets through.
    const parts = (s.allOf as Schema[]).map((b) => new Set(droppedKeys(b, value, path)));
    return [...parts[0]].filter((p) => parts.every((set) => set.has(p)));
  }
  if (Array.isArray(value)) {
    return s.items ? value.flatMap((v, i) => droppedKeys(s.items, v, `${path}[${i}]`)) : [];
  }
  if (typeof value === 'object' && s.type === 'object') {
    const props = (s.properties ?? {}) as Record<string, Schema>;
    const additional = s.additionalProperties;
    const out: string[] = [];
    for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
      const at = path ? `${path}.${k}` : k;
      if (k in props) {
        out.push(...droppedKeys(props[k], v, at));
      } else if (additional === undefined || additional === false) {
        if (v !== undefined) {
          out.push(at);
        }
      } else if (typeof additional === 'object') {
        out.push(...droppedKeys(additional, v, at));
      }
    }
    return out;
  }
  return [];
}

function fits(schema: Schema, value: unknown): boolean {
  const t = schema.type;
  if (value === null) {
    return t === 'null';
  }
  if (Array.isArray(value)) {
    return t === 'array';
  }
  if (typeof value === 'object') {
    return t === 'object';
  }
  return t === undefined || t === typeof value || (t === 'integer' && typeof value === 'number');
}
