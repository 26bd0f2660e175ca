// Font subsets through HarfBuzz's subsetter (hb-subset, the WebAssembly build harfbuzzjs ships):
// a CJK face is 4 MB and a name uses a handful of its 28,000 glyphs, so only those are embedded.
// The module has no imports of its own; it is compiled on first use and kept for the process.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

interface SubsetExports {
  memory: WebAssembly.Memory;
  malloc(size: number): number;
  free(ptr: number): void;
  _initialize(): void;
  hb_blob_create(data: number, length: number, mode: number, userData: number, destroy: number): number;
  hb_blob_destroy(blob: number): void;
  hb_blob_get_data(blob: number, lengthPtr: number): number;
  hb_face_create(blob: number, index: number): number;
  hb_face_destroy(face: number): void;
  hb_face_reference_blob(face: number): number;
  hb_set_add(set: number, value: number): void;
  hb_subset_input_create_or_fail(): number;
  hb_subset_input_destroy(input: number): void;
  hb_subset_input_set(input: number, which: number): number;
  hb_subset_input_set_flags(input: number, flags: number): void;
  hb_subset_or_fail(face: number, input: number): number;
}

// hb-subset.h: hb_subset_sets_t and hb_subset_flags_t.
const SETS = { glyphs: 0, unicodes: 1, dropTables: 3 } as const;
const FLAG_NO_HINTING = 0x1;
const FLAG_RETAIN_GIDS = 0x2;
const MEMORY_MODE_READONLY = 1;

let wasm: SubsetExports | undefined;
function subsetter(): SubsetExports {
  if (!wasm) {
    const bytes = readFileSync(require.resolve('harfbuzzjs/dist/harfbuzz-subset.wasm'));
    wasm = new WebAssembly.Instance(new WebAssembly.Module(bytes), {}).exports as unknown as SubsetExports;
    wasm._initialize();
  }
  return wasm;
}

const tag = (t: string) => ((t.charCodeAt(0) << 24) | (t.charCodeAt(1) << 16) | (t.charCodeAt(2) << 8) | t.charCodeAt(3)) >>> 0;

/** What the subset keeps. */
export type SubsetRequest =
  /** These characters and every glyph the shaper may reach from them (layout tables kept, subsetted). */
  | { unicodes: Iterable<number> }
  /**
   * Exactly these glyphs, under their own ids (the ids a content stream already names), without
   * the layout tables and hinting a PDF reader never uses: the form embedded in a document.
   */
  | { glyphs: Iterable<number> };

// The faces kept in the subsetter's memory, by their bytes: copying a 4 MB face in for every
// signature was most of the time a legend's fonts took. At most the dozen faces of text-fonts.ts.
const kept = new Map<Uint8Array, number>();

/**
 * A subset of a TrueType font; throws when the subsetter refuses the font. `keep`: the font stays
 * loaded in the subsetter for the next call with the same bytes (for the service's own faces).
 */
export function subsetFont(font: Uint8Array, request: SubsetRequest, keep = false): Uint8Array {
  const w = subsetter();
  let face = kept.get(font) ?? 0;
  let data = 0;
  let blob = 0;
  if (!face) {
    data = w.malloc(font.length);
    new Uint8Array(w.memory.buffer, data, font.length).set(font);
    blob = w.hb_blob_create(data, font.length, MEMORY_MODE_READONLY, 0, 0);
    face = w.hb_face_create(blob, 0);
    if (keep) {
      kept.set(font, face);
    }
  }
  const owned = !kept.has(font);
  const input = w.hb_subset_input_create_or_fail();
  let result = 0;
  try {
    if (!input) {
      throw new Error('the font subsetter could not start');
    }
    if ('unicodes' in request) {
      const set = w.hb_subset_input_set(input, SETS.unicodes);
      for (const cp of request.unicodes) {
        w.hb_set_add(set, cp);
      }
    } else {
      const set = w.hb_subset_input_set(input, SETS.glyphs);
      for (const gid of request.glyphs) {
        w.hb_set_add(set, gid);
      }
      const drop = w.hb_subset_input_set(input, SETS.dropTables);
      for (const t of ['GSUB', 'GPOS', 'GDEF', 'BASE', 'JSTF', 'MATH', 'name', 'DSIG', 'hdmx', 'VDMX', 'LTSH', 'kern', 'vhea', 'vmtx']) {
        w.hb_set_add(drop, tag(t));
      }
      w.hb_subset_input_set_flags(input, FLAG_RETAIN_GIDS | FLAG_NO_HINTING);
    }
    result = w.hb_subset_or_fail(face, input);
    if (!result) {
      throw new Error('the font subsetter refused the font');
    }
    const out = w.hb_face_reference_blob(result);
    const lengthPtr = w.malloc(4);
    try {
      const ptr = w.hb_blob_get_data(out, lengthPtr);
      const length = new Uint32Array(w.memory.buffer, lengthPtr, 1)[0];
      // Copied out: the module's memory is reused by the next call.
      return new Uint8Array(w.memory.buffer, ptr, length).slice();
    } finally {
      w.free(lengthPtr);
      w.hb_blob_destroy(out);
    }
  } finally {
    if (result) {
      w.hb_face_destroy(result);
    }
    if (input) {
      w.hb_subset_input_destroy(input);
    }
    if (owned) {
      w.hb_face_destroy(face);
      w.hb_blob_destroy(blob);
      w.free(data);
    }
  }
}
