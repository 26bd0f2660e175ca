// A reading of docs/api.md as the contract it states: the operations it names, where each is
// described, the fields it names for them, and the error codes. The page is written for people, so
// this reads the forms it uses, and only those: headings (`### GET /api/document: …`,
// `#### POST /api/{documentId}/workflow`, `### Packages and consumption: GET /api/account,
// /api/account/packages`), bold lines that open an operation's paragraphs (`**POST
// /sign/api/{token}/sign**: sign.`), `METHOD /path` in backticks in the text, tables whose first column is a
// field (headed Field, Key, Query parameter, Key of `x[]`), JSON in ```json blocks, and the table
// of codes under "## Errors".

export interface Section {
  heading: string;
  level: number;
  /** Lines [start, end): the heading and everything up to the next heading of its level or higher. */
  start: number;
  end: number;
  slug: string;
}

export interface ApiDocs {
  lines: string[];
  /** For each line, whether it lies inside a fenced code block (its fences included). */
  fenced: boolean[];
  sections: Section[];
}

const METHOD = '(?:GET|POST|PUT|PATCH|DELETE)';

export function readApiDocs(text: string): ApiDocs {
  const lines = text.split('\n');
  const fenced: boolean[] = [];
  let inFence = false;
  for (const line of lines) {
    // Fences may be indented (a block inside a numbered step).
    const fence = line.trimStart().startsWith('```');
    fenced.push(inFence || fence);
    if (fence) {
      inFence = !inFence;
    }
  }
  const heads = lines.flatMap((line, i) => {
    const m = /^(#{2,4}) (.+)$/.exec(line);
    return m && !fenced[i] ? [{ heading: m[2], level: m[1].length, start: i }] : [];
  });
  const sections = heads.map((h, k) => {
    const next = heads.slice(k + 1).find((x) => x.level <= h.level);
    return { ...h, end: next ? next.start : lines.length, slug: slugOf(h.heading) };
  });
  // A long section describes its operations one by one under a bold line (`**GET /sign/api/{token}**: …`,
  // or a numbered step `1. **POST /sign/api/{token}/otp** …`):
  // each such stretch, up to the next bold operation or heading, is a section of its own.
  const bold = new RegExp(`^(?:\\d+\\. )?\\*\\*\`?(${METHOD} /[^*\`]*)\`?\\*\\*`);
  const starts = lines.flatMap((line, i) => (!fenced[i] && (bold.test(line) || /^#{2,4} /.test(line)) ? [i] : []));
  for (const [k, start] of starts.entries()) {
    const m = bold.exec(lines[start]);
    if (m) {
      sections.push({ heading: m[1], level: 5, start, end: starts[k + 1] ?? lines.length, slug: '' });
    }
  }
  sections.sort((a, b) => a.start - b.start || a.level - b.level);
  return { lines, fenced, sections };
}

/** The anchor GitHub gives a heading. */
export function slugOf(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}_\- ]/gu, '')
    .replace(/ /g, '-');
}

/** `GET /a/{x}`, `GET and POST /verify`, `GET /a, /b` (the method carried over) in one line of text. */
export function operationsIn(text: string): string[] {
  const out: string[] = [];
  const re = new RegExp(`\\b(${METHOD}(?: and ${METHOD})*) (/[\\w{}./…-]*(?:, /[\\w{}./…-]*)*)`, 'g');
  for (const m of text.matchAll(re)) {
    const methods = m[1].split(' and ');
    for (const raw of m[2].split(', ')) {
      const path = raw.replace(/[.:]$/, '');
      // "…/evidence"-style shorthands and elided paths name no single operation.
      if (path.includes('…') || path === '/') {
        if (path === '/') {
          out.push(...methods.map((x) => `${x} /`));
        }
        continue;
      }
      out.push(...methods.map((x) => `${x} ${path}`));
    }
  }
  return out;
}

/** The operations a line names in backticks: `GET /api/document`, `POST /developers/template/pdf?name={name}`. */
export function backtickedOperations(line: string): string[] {
  const out: string[] = [];
  for (const m of line.matchAll(new RegExp(`\`(${METHOD} /[^\`\\s]*)\``, 'g'))) {
    // An elided path (`GET /api/certifiedEmail/{ticket}/…`) names no single operation.
    const named = m[1].replace(/\?.*$/, '');
    if (!named.includes('…')) {
      out.push(named);
    }
  }
  return out;
}

/**
 * Whether a path the docs write matches a path of the OpenAPI document the way the router matches
 * a request: equal literal segments, and any segment where the route has a parameter (so
 * `/api/document/original/{ticket}` is `/api/document/{type}/{ticket}`).
 */
export function pathMatches(docPath: string, routePath: string): boolean {
  const a = docPath.split('/');
  const b = routePath.split('/');
  return a.length === b.length && a.every((x, i) => x === b[i] || /^\{.+\}$/.test(b[i]));
}

/** Identifiers the prose names: code spans outside fenced blocks, keys of JSON blocks, and `{param}` in headings and bold operation lines. */
export function namedWords(docs: ApiDocs, start: number, end: number): Set<string> {
  const words = new Set<string>();
  const add = (s: string) => {
    for (const w of s.match(/[A-Za-z_][A-Za-z0-9_]*/g) ?? []) {
      words.add(w);
    }
  };
  // Code spans may run over a line break, so the prose is read as one text (fenced lines left out).
  const prose: string[] = [];
  for (let i = start; i < end; i++) {
    const line = docs.lines[i];
    if (docs.fenced[i]) {
      prose.push('');
      for (const m of line.matchAll(/"([^"\s]+)"\s*:/g)) {
        add(m[1]);
      }
      continue;
    }
    prose.push(line);
    if (/^(#{2,4} |(\d+\. )?\*\*)/.test(line)) {
      for (const m of line.matchAll(/\{(\w+)\}/g)) {
        add(m[1]);
      }
    }
  }
  for (const m of prose.join('\n').matchAll(/`([^`]+)`/g)) {
    add(m[1]);
  }
  return words;
}

const FIELD_TABLE = /^(field|key|query parameter|parameter|key of .+)$/i;

export interface JsonExample {
  /** The line of its opening fence. */
  line: number;
  /** The example parsed, when it is whole JSON; else its keys by name. */
  value?: unknown;
  keys: string[];
}

/**
 * What a stretch of the page states for its operations: the first column of its field tables (each
 * identifier in code there; `a.b` names both), and its JSON examples that are not an error body.
 */
export function statedFields(
  docs: ApiDocs,
  start: number,
  end: number,
): { fields: { field: string; line: number }[]; examples: JsonExample[] } {
  const fields: { field: string; line: number }[] = [];
  const examples: JsonExample[] = [];
  let inFieldTable = false;
  let block: { line: number; text: string[] } | null = null;
  for (let i = start; i < end; i++) {
    const line = docs.lines[i];
    if (line.trimStart().startsWith('```')) {
      if (block === null && line.trim() === '```json') {
        block = { line: i + 1, text: [] };
      } else if (block !== null) {
        const text = block.text.join('\n');
        if (!/"error"\s*:/.test(text)) {
          examples.push({
            line: block.line,
            value: parsed(text),
            keys: [...text.matchAll(/"([A-Za-z_][A-Za-z0-9_]*)"\s*:/g)].map((m) => m[1]),
          });
        }
        block = null;
      }
      continue;
    }
    if (block !== null) {
      block.text.push(line);
      continue;
    }
    if (docs.fenced[i]) {
      continue;
    }
    const cells = line.startsWith('|') ? line.split('|').slice(1, -1) : null;
    if (!cells) {
      inFieldTable = false;
    } else if (/^\|[-| :]+\|$/.test(docs.lines[i + 1] ?? '')) {
      inFieldTable = FIELD_TABLE.test(cells[0].trim());
    } else if (inFieldTable && !/^\|[-| :]+\|$/.test(line)) {
      for (const m of cells[0].matchAll(/`([^`]+)`/g)) {
        for (const w of m[1].match(/[A-Za-z_][A-Za-z0-9_]*/g) ?? []) {
          fields.push({ field: w, line: i + 1 });
        }
      }
    }
  }
  return { fields, examples };
}

function parsed(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** The table under "## Errors": each code with the status the page gives it. */
export function errorTable(docs: ApiDocs): Map<string, number> {
  const section = docs.sections.find((s) => s.heading === 'Errors' && s.level === 2);
  const codes = new Map<string, number>();
  for (const line of docs.lines.slice(section?.start ?? 0, section?.end ?? 0)) {
    const m = /^\| `([A-Z][A-Z0-9_]+)` \| (\d{3}) \|/.exec(line);
    if (m) {
      codes.set(m[1], Number(m[2]));
    }
  }
  return codes;
}

/** Codes the prose gives with a status (`404 DOCUMENT_NOT_FOUND`, `409 \`NOT_YET_AVAILABLE\``), each with its line. */
export function codesInProse(docs: ApiDocs): { code: string; status: number; line: number }[] {
  const out: { code: string; status: number; line: number }[] = [];
  docs.lines.forEach((line, i) => {
    for (const m of line.matchAll(/\b([1-5]\d\d) `?([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+)\b/g)) {
      out.push({ code: m[2], status: Number(m[1]), line: i + 1 });
    }
  });
  return out;
}
