// The panel's API keys: list (never a key), create, rotate one, revoke one.
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { Deps } from '../../domain/deps.js';
import { createAccountKey, listAccountKeys, revokeAccountKey, rotateAccountKey } from '../../domain/accounts/manage-api-keys.js';
import { sessionOf } from './session-of.js';

const KeyParams = Type.Object({ id: Type.String() });

export function panelKeyRoutes(deps: Deps) {
  return async function routes(app: FastifyInstance) {
    app.get('/panel/api/keys', { schema: { hide: true } }, async (req) => listAccountKeys(deps, { accountId: sessionOf(req).account_id }));
    app.post('/panel/api/keys', { schema: { hide: true } }, async (req, reply) =>
      reply.code(201).send(await createAccountKey(deps, { accountId: sessionOf(req).account_id })),
    );
    app.post('/panel/api/keys/:id/rotate', { schema: { hide: true, params: KeyParams } }, async (req) =>
      rotateAccountKey(deps, { accountId: sessionOf(req).account_id, keyId: (req.params as { id: string }).id }),
    );
    app.post('/panel/api/keys/:id/revoke', { schema: { hide: true, params: KeyParams } }, async (req) =>
      revokeAccountKey(deps, { accountId: sessionOf(req).account_id, keyId: (req.params as { id: string }).id }),
    );
  };
}
