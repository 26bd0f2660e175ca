import { Type } from '@sinclair/typebox';
import { describe, expect, it } from 'vitest';
import { checkInput } from '../../src/domain/check-input.js';
import { AppError } from '../../src/domain/errors.js';

const Body = Type.Object(
  {
    name: Type.String({ maxLength: 5 }),
    signers: Type.Array(Type.Object({ email: Type.String({ format: 'email' }) })),
  },
  { additionalProperties: false },
);

function errorOf(value: unknown): AppError {
  try {
    checkInput(Body, value);
  } catch (e) {
    return e as AppError;
  }
  throw new Error('accepted');
}

describe("checkInput: the routes' rules for a use case reached another way", () => {
  it('gives back a value that fits the schema', () => {
    const v = checkInput(Body, { name: 'a', signers: [{ email: 'a@b.mx' }] });
    expect(v.signers[0]?.email).toBe('a@b.mx');
  });

  it('names the field of a nested error as the API does', () => {
    const e = errorOf({ name: 'a', signers: [{ email: 'nope' }] });
    expect(e).toBeInstanceOf(AppError);
    expect(e.code).toBe('INVALID_INPUT');
    expect(e.message).toMatch(/^signers\[0\]\.email: /);
    expect((e.details as { field: string }).field).toBe('signers[0].email');
  });

  it('names a missing field, and the part for a query string', () => {
    expect(errorOf({ signers: [] }).message).toMatch(/^name: /);
    try {
      checkInput(Type.Object({ page: Type.String() }), {}, 'querystring');
      throw new Error('accepted');
    } catch (e) {
      expect((e as AppError).message).toMatch(/^querystring\.page: /);
    }
  });
});
