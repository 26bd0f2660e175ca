// The tokens of a content stream (PDF 32000-1 §7.2, §8.9.7 inline images), as content-marks.ts
// needs them: numbers, names, operators, and strings reduced to their length in bytes.

export type Token = { op: string } | { num: number } | { bytes: number } | { name: string } | { other: true };

const WS = new Set([0x00, 0x09, 0x0a, 0x0c, 0x0d, 0x20]);
const DELIM = new Set([0x28, 0x29, 0x3c, 0x3e, 0x5b, 0x5d, 0x7b, 0x7d, 0x2f, 0x25]);

/** Tokens of a content stream; strings keep only their length in bytes (what text measuring needs). */
export function* tokens(data: Uint8Array): Generator<Token> {
  let i = 0;
  const n = data.length;
  while (i < n) {
    const c = data[i];
    if (WS.has(c)) {
      i++;
    } else if (c === 0x25) {
      while (i < n && data[i] !== 0x0a && data[i] !== 0x0d) {
        i++;
      }
    } else if (c === 0x28) {
      let depth = 1;
      let len = 0;
      i++;
      while (i < n && depth > 0) {
        if (data[i] === 0x5c) {
          i += 2;
        } else {
          depth += data[i] === 0x28 ? 1 : data[i] === 0x29 ? -1 : 0;
          i++;
        }
        len++;
      }
      yield { bytes: Math.max(0, len - 1) };
    } else if (c === 0x3c && data[i + 1] === 0x3c) {
      i += 2;
      yield { op: '<<' };
    } else if (c === 0x3e && data[i + 1] === 0x3e) {
      i += 2;
      yield { op: '>>' };
    } else if (c === 0x3c) {
      const start = i;
      while (i < n && data[i] !== 0x3e) {
        i++;
      }
      i++;
      yield { bytes: Math.ceil((i - start - 2) / 2) };
    } else if (c === 0x5b || c === 0x5d || c === 0x7b || c === 0x7d) {
      i++;
      yield { op: String.fromCharCode(c) };
    } else if (c === 0x2f) {
      const start = ++i;
      while (i < n && !WS.has(data[i]) && !DELIM.has(data[i])) {
        i++;
      }
      yield { name: Buffer.from(data.subarray(start, i)).toString('latin1') };
    } else {
      const start = i;
      while (i < n && !WS.has(data[i]) && !DELIM.has(data[i])) {
        i++;
      }
      if (i === start) {
        i++; // a stray delimiter (")" or ">"): skipped
        continue;
      }
      const word = Buffer.from(data.subarray(start, i)).toString('latin1');
      const num = Number(word);
      if (word !== '' && Number.isFinite(num) && /^[+-]?(\d+\.?\d*|\.\d+)$/.test(word)) {
        yield { num };
      } else if (word === 'ID') {
        // Inline image data runs to the EI that follows white space (§8.9.7).
        i++;
        while (i < n && !(WS.has(data[i - 1]) && data[i] === 0x45 && data[i + 1] === 0x49 && (i + 2 >= n || WS.has(data[i + 2])))) {
          i++;
        }
        i += 2;
        yield { op: 'EI' };
      } else {
        yield { op: word };
      }
    }
  }
}
