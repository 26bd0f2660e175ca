// A file handed to a worker thread without copying it twice. postMessage copies a plain
// Uint8Array twice (serialized on this side, deserialized on the other) and the worker's copy lives
// until the worker next collects garbage, which an idle worker never does: with a 50 MB PDF that
// was 100 MB more at the peak and 50 MB left behind. Memory of a SharedArrayBuffer is shared by
// both threads instead; the worker only reads it.

/** `bytes` itself when its memory is shared already, else one copy of it in shared memory. */
export function sharedBytes(bytes: Uint8Array): Uint8Array {
  if (bytes.buffer instanceof SharedArrayBuffer) {
    return bytes;
  }
  const shared = new Uint8Array(new SharedArrayBuffer(bytes.byteLength));
  shared.set(bytes);
  return shared;
}
