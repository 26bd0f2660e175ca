// The part of pako (the inflater @libpdf/core uses) that pdf/decode-budget.ts counts with; pako ships no types.
declare module 'pako' {
  class Inflate {
    onData: (chunk: Uint8Array) => void;
    onEnd: (status: number) => void;
    push(data: Uint8Array, final?: boolean): boolean;
  }
  const pako: { Inflate: typeof Inflate };
  export default pako;
}
