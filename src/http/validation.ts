// The one validator compiler of every route (domain/check-input.ts): each route's params, querystring and body are checked
// against its schema (src/schemas/) before the handler runs, with Fastify's own Ajv settings.
// Parts of a schema marked checkedByUseCase are shown in full in the OpenAPI document but skipped
// here: their rules need what only the use case knows (the PDF's pages) or its messages are part
// of the contract (sticker index and rule, decisions.md). A schema marked optional (TypeBox
// Type.Optional) also accepts a request without a body.
import type { TSchema } from '@sinclair/typebox';
import type { FastifySchemaCompiler } from 'fastify';
import { compileInputCheck } from '../domain/check-input.js';

export { validatedPart } from '../domain/check-input.js';

export const validatorCompiler: FastifySchemaCompiler<TSchema> = ({ schema }) => compileInputCheck(schema);
