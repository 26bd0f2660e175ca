// The part of pako (the inflater @libpdf/core uses) that pdf/decode-budget.ts meters; pako ships no types.
declare module 'pako' {
  interface Inflate {
    onData(chunk: Uint8Array): void;
  }
  const pako: { Inflate: { prototype: Inflate } };
  export default pako;
}
