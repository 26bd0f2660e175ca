// DESIGN.md's shape, held by imports: http/ and cli/ call domain/, only domain/ reaches store/, the
// pure libraries (pdf/, pki/, identity-imaging/, render/) reach neither, and the jail runs pure
// libraries without importing the template engines. An import against these would let a route or a
// command read or write rows around the use case's rules, or tie a pure library to the database.
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const SRC = join(import.meta.dirname, '../../src');

/** Each folder of src/ and the folders of src/ it must not import. */
const FORBIDDEN: Record<string, string[]> = {
  http: ['store'],
  cli: ['store'],
  pdf: ['domain', 'store', 'http', 'jail', 'render'],
  pki: ['domain', 'store', 'http', 'pdf'],
  'identity-imaging': ['domain', 'store', 'http'],
  render: ['domain', 'store', 'http'],
  jail: ['render', 'domain', 'store', 'http'],
  schemas: ['store', 'http'],
};

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? sources(path) : /\.(ts|mjs)$/.test(path) ? [path] : [];
  });
}

/** The top folders of src/ a file imports, from its relative specifiers. */
function importedRooms(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const rooms = new Set<string>();
  for (const m of text.matchAll(/(?:from|import)\s*\(?\s*'(\.{1,2}\/[^']+)'/g)) {
    const target = relative(SRC, join(file, '..', m[1]));
    if (!target.startsWith('..')) {
      rooms.add(target.split('/')[0]);
    }
  }
  return [...rooms];
}

describe('layers', () => {
  for (const [room, forbidden] of Object.entries(FORBIDDEN)) {
    it(`${room}/ imports none of ${forbidden.join(', ')}`, () => {
      const breaches = sources(join(SRC, room)).flatMap((file) =>
        importedRooms(file)
          .filter((r) => forbidden.includes(r))
          .map((r) => `${relative(SRC, file)} → ${r}/`),
      );
      expect(breaches).toEqual([]);
    });
  }

  it('domain/ writes no SQL: queries live in store/', () => {
    const withSql = sources(join(SRC, 'domain')).filter((file) =>
      /import\s*\{[^}]*\bsql\b[^}]*\}\s*from\s*'kysely'/.test(readFileSync(file, 'utf8')),
    );
    expect(withSql.map((f) => relative(SRC, f))).toEqual([]);
  });
});
