// The elements of a DER encoding found by their headers alone (X.690 §8.1: identifier, definite
// length, contents), without building a tree of them. asn1js turns every element into a handful
// of objects: for a time-stamp reply, whose certificates hold hundreds of elements, that is most
// of the cost of reading it, while the check needs only a few of its elements parsed. Anything
// this walk does not take (an indefinite length, a high tag number, an element that runs past its
// parent) is left to the full parser, which reads BER.

/** One element: its identifier octet and where its header, contents and end lie. */
export interface DerElement {
  tag: number;
  start: number;
  /** Offset of the first content octet. */
  content: number;
  end: number;
}

/** The element at `at` within [at, limit), or undefined when it is not a plain DER header. */
function elementAt(bytes: Uint8Array, at: number, limit: number): DerElement | undefined {
  if (at + 2 > limit) {
    return undefined;
  }
  const tag = bytes[at];
  if ((tag & 0x1f) === 0x1f) {
    return undefined; // a high tag number: nothing the service reads this way has one
  }
  let i = at + 1;
  const first = bytes[i++];
  let length = first;
  if (first & 0x80) {
    const octets = first & 0x7f;
    if (octets === 0 || octets > 4 || i + octets > limit) {
      return undefined; // indefinite (BER), or longer than anything signed
    }
    length = 0;
    for (let k = 0; k < octets; k++) {
      length = length * 256 + bytes[i++];
    }
  }
  const end = i + length;
  return end <= limit ? { tag, start: at, content: i, end } : undefined;
}

/**
 * The elements inside the constructed element `parent` (or, without it, the one element that is
 * the whole of `bytes`), in order; undefined when any header is not plain DER or they do not fill
 * their parent exactly.
 */
export function derChildren(bytes: Uint8Array, parent?: DerElement): DerElement[] | undefined {
  let outer = parent;
  if (!outer) {
    outer = elementAt(bytes, 0, bytes.length);
    if (!outer || outer.end !== bytes.length) {
      return undefined;
    }
  }
  if ((outer.tag & 0x20) === 0) {
    return undefined; // primitive: no elements inside
  }
  const children: DerElement[] = [];
  for (let at = outer.content; at < outer.end; ) {
    const child = elementAt(bytes, at, outer.end);
    if (!child) {
      return undefined;
    }
    children.push(child);
    at = child.end;
  }
  return children;
}
