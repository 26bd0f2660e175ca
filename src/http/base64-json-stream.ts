// A JSON answer that carries a file in Base64, written as a stream. Serialized whole, a 50 MB file
// was in memory four times over at once (the bytes, the Base64 string, the JSON text and its
// UTF-8 copy for the socket: about 250 MB); written in slices it is there once, plus one slice.
import { Readable } from 'node:stream';

/** Bytes of the file per slice: a multiple of 3, so every slice encodes to Base64 without padding. */
const SLICE = 3 * 64 * 1024;

/**
 * `{...fields, [key]: Base64(bytes)}` as a stream of JSON text, fields first in the order given
 * (the order the route's serializer wrote them in), and its length in bytes.
 */
export function base64JsonStream(fields: Record<string, string>, key: string, bytes: Uint8Array): { stream: Readable; length: number } {
  const head = Buffer.from(
    `${JSON.stringify(fields).slice(0, -1)}${Object.keys(fields).length > 0 ? ',' : ''}${JSON.stringify(key)}:"`,
    'utf8',
  );
  const tail = Buffer.from('"}', 'utf8');
  const file = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  function* parts() {
    yield head;
    for (let at = 0; at < file.length; at += SLICE) {
      yield Buffer.from(file.subarray(at, at + SLICE).toString('base64'), 'latin1');
    }
    yield tail;
  }
  return { stream: Readable.from(parts(), { objectMode: false }), length: head.length + Math.ceil(file.length / 3) * 4 + tail.length };
}
