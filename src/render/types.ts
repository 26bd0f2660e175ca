// The template engines' interface (src/template-types.ts), as render/'s modules and callers name it.
export * from '../template-types.js';
