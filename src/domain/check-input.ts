// The one checker of a request's shape. The routes run it (http/validation.ts hands it to Fastify
// as the validator compiler), and a use case called from elsewhere (the panel's forms, the CLI,
// the rows of a bulk run) runs the same schema through checkInput, so a body is judged by one
// set of rules and answered with one error shape whichever door it came in by.
import { OptionalKind, type Static, type TSchema } from '@sinclair/typebox';
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import formats from 'ajv-formats';
import { CHECKED_BY_USE_CASE } from '../schemas/common.js';
import { AppError } from './errors.js';

const ajv = new Ajv({
  // Fastify's defaults (@fastify/ajv-compiler) with what app.ts asked of them: no type coercion,
  // no silent removal of unknown keys, stop at the first error (allErrors invites a DoS).
  coerceTypes: false,
  useDefaults: true,
  removeAdditional: false,
  addUsedSchema: false,
  allErrors: false,
  // OpenAPI's `format: binary` describes a multipart part; it has no check.
  formats: { binary: true },
});
formats.default(ajv);

/** The schema that is checked: every part marked checkedByUseCase replaced by "anything". */
export function validatedPart(schema: unknown): unknown {
  if (Array.isArray(schema)) {
    return schema.map(validatedPart);
  }
  if (typeof schema !== 'object' || schema === null) {
    return schema;
  }
  const s = schema as Record<string, unknown>;
  if (s[CHECKED_BY_USE_CASE] === true) {
    return {};
  }
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(s)) {
    out[key] = validatedPart(value);
  }
  return out;
}

export type InputCheck = ((data: unknown) => boolean) & { errors: ErrorObject[] | null };

// Compiled once per schema object: a use case called per row must not compile per call.
const compiled = new WeakMap<object, ValidateFunction>();

/** A check of `schema` with the errors of the last call on `.errors`, as Fastify reads them. */
export function compileInputCheck(schema: TSchema): InputCheck {
  let check = compiled.get(schema);
  if (!check) {
    check = ajv.compile(validatedPart(schema) as object);
    compiled.set(schema, check);
  }
  const ajvCheck = check;
  const optional = (schema as unknown as Record<PropertyKey, unknown>)[OptionalKind] === 'Optional';
  const validate = Object.assign(
    (data: unknown) => {
      // Fastify hands an absent body in as null.
      if (optional && (data === null || data === undefined)) {
        validate.errors = null;
        return true;
      }
      const ok = ajvCheck(data) as boolean;
      validate.errors = ajvCheck.errors ?? null;
      return ok;
    },
    { errors: null as ErrorObject[] | null },
  );
  return validate;
}

/**
 * The field a schema error names, as the API's messages write it: `workflow.expiration`,
 * `signers[0].email`. `part` is `querystring`/`params` for those, empty for the body.
 */
export function inputErrorField(part: string, error: ErrorObject | undefined): string {
  const missing = (error?.params as { missingProperty?: string } | undefined)?.missingProperty;
  let name = part;
  const segments = (error?.instancePath ?? '')
    .split('/')
    .slice(1)
    .map((x) => x.replace(/~1/g, '/').replace(/~0/g, '~'));
  for (const seg of [...segments, ...(missing ? [missing] : [])]) {
    name = /^\d+$/.test(seg) ? `${name}[${seg}]` : name ? `${name}.${seg}` : seg;
  }
  return name || part || 'body';
}

/** The house's answer to a value that breaks its schema: 400 INVALID_INPUT naming the field. */
export function inputError(part: string, errors: ErrorObject[]): AppError {
  const first = errors[0];
  const field = inputErrorField(part, first);
  return new AppError('INVALID_INPUT', `${field}: ${first?.message ?? 'invalid'}`, { field, errors });
}

/**
 * Checks `value` against `schema` and gives it back typed, or throws the same 400 a route gives.
 * For use cases reached without a route's check (panel forms, CLI, bulk rows); a route's handler
 * has already had its body checked and need not call this again.
 */
export function checkInput<T extends TSchema>(schema: T, value: unknown, part = ''): Static<T> {
  const check = compileInputCheck(schema);
  if (!check(value)) {
    throw inputError(part, check.errors ?? []);
  }
  return value as Static<T>;
}
