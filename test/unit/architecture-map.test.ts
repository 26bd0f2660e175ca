// docs/architecture.md's layout names every folder of the repository, and only folders that exist:
// a room added without a line there, or one renamed, fails here.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..');
/** What is built, installed or generated, never written by hand. */
const NOT_MAPPED = new Set(['node_modules', 'dist', 'build', '.git']);

/** The folders of the "## Layout" block, as paths, from their indentation (two spaces a level). */
function mappedFolders(markdown: string): string[] {
  const layout = markdown.split('\n## Layout\n')[1] ?? '';
  const block = layout.split('```')[1] ?? '';
  const stack: string[] = [];
  const out: string[] = [];
  for (const line of block.split('\n')) {
    // A folder is a name ending in "/" at a line's start (continuation lines are indented further).
    const m = /^( {0,10})([A-Za-z0-9._-]+)\/(\s|$)/.exec(line);
    if (!m) {
      continue;
    }
    const depth = m[1].length / 2;
    stack.length = depth;
    stack.push(m[2]);
    out.push(stack.join('/'));
  }
  return out;
}

function foldersOnDisk(dir = '', out: string[] = []): string[] {
  for (const e of readdirSync(join(ROOT, dir), { withFileTypes: true })) {
    if (!e.isDirectory() || NOT_MAPPED.has(e.name)) {
      continue;
    }
    const rel = dir ? `${dir}/${e.name}` : e.name;
    out.push(rel);
    foldersOnDisk(rel, out);
  }
  return out;
}

describe('the architecture map', () => {
  const doc = readFileSync(join(ROOT, 'docs', 'architecture.md'), 'utf8');

  it('reads nested folders from the layout block', () => {
    const sample = '## Layout\n\n```\nsrc/   x\n  domain/   y\n    sets/  z\n                        http/ continued\n  pdf/\n```\n';
    expect(mappedFolders(`\n${sample}`)).toEqual(['src', 'src/domain', 'src/domain/sets', 'src/pdf']);
  });

  it('names every folder of the repository, and no folder that is gone', () => {
    const mapped = new Set(mappedFolders(doc));
    const onDisk = new Set(foldersOnDisk().filter((f) => !f.startsWith('.') || f === '.ci'));
    expect([...onDisk].filter((f) => !mapped.has(f)).sort(), 'folders the map does not name').toEqual([]);
    expect([...mapped].filter((f) => !onDisk.has(f)).sort(), 'folders the map names that do not exist').toEqual([]);
  });
});
