// The one validator compiler of every route: each route's params, querystring and body are checked
// against its schema (src/schemas/) before the handler runs, with Fastify's own Ajv settings.
// Parts of a schema marked checkedByUseCase are shown in full in the OpenAPI document but skipped
// here: their rules need what only the use case knows (the PDF's pages) or its messages are part
// of the contract (sticker index and rule, decisions.md). A schema marked optional (TypeBox
// Type.Optional) also accepts a request without a body.
import { OptionalKind, type TSchema } from '@sinclair/typebox';
import { Ajv } from 'ajv';
import formats from 'ajv-formats';
import type { FastifySchemaCompiler } from 'fastify';
import { CHECKED_BY_USE_CASE } from '../schemas/common.js';

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

export const validatorCompiler: FastifySchemaCompiler<TSchema> = ({ schema }) => {
  const check = ajv.compile(validatedPart(schema) as object);
  const optional = (schema as unknown as Record<PropertyKey, unknown>)[OptionalKind] === 'Optional';
  // Fastify reads the errors off the function when it answers false.
  const validate = Object.assign(
    (data: unknown) => {
      // Fastify hands an absent body in as null.
      if (optional && (data === null || data === undefined)) {
        validate.errors = null;
        return true;
      }
      const ok = check(data) as boolean;
      validate.errors = check.errors ?? null;
      return ok;
    },
    { errors: null as typeof check.errors | null },
  );
  return validate;
};
