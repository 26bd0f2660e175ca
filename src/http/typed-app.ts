// The Fastify instance a route plugin works with once its TypeBox schemas type the requests
// (`fastify.withTypeProvider<TypeBoxTypeProvider>()`): the type of the helpers that register a
// group of routes on it.
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyBaseLogger, FastifyInstance, RawReplyDefaultExpression, RawRequestDefaultExpression, RawServerDefault } from 'fastify';

export type TypedApp = FastifyInstance<
  RawServerDefault,
  RawRequestDefaultExpression,
  RawReplyDefaultExpression,
  FastifyBaseLogger,
  TypeBoxTypeProvider
>;
