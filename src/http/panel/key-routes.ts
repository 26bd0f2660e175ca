// The panel's API keys: list (never a key), create, rotate one, revoke one.
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import type { Deps } from '../../domain/deps.js';
import { createAccountKey, listAccountKeys, revokeAccountKey, rotateAccountKey } from '../../domain/accounts/manage-api-keys.js';
import { ErrorResponse, NoBody } from '../../schemas/common.js';
import { PanelKeyList, PanelKeyParams, PanelNewKey, PanelRevokedKey, PanelRotatedKey } from '../../schemas/panel.js';
import { sessionOf } from './session-of.js';

export function panelKeyRoutes(deps: Deps) {
  return async function routes(fastify: FastifyInstance) {
    const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
    app.get('/panel/api/keys', { schema: { hide: true, response: { 200: PanelKeyList, '4xx': ErrorResponse } } }, async (req) =>
      listAccountKeys(deps, { accountId: sessionOf(req).account_id }),
    );
    app.post(
      '/panel/api/keys',
      { schema: { hide: true, body: NoBody, response: { 201: PanelNewKey, '4xx': ErrorResponse } } },
      async (req, reply) => reply.code(201).send(await createAccountKey(deps, { accountId: sessionOf(req).account_id })),
    );
    const rotate = { hide: true, params: PanelKeyParams, body: NoBody, response: { 200: PanelRotatedKey, '4xx': ErrorResponse } };
    app.post('/panel/api/keys/:id/rotate', { schema: rotate }, async (req) =>
      rotateAccountKey(deps, { accountId: sessionOf(req).account_id, keyId: req.params.id }),
    );
    const revoke = { hide: true, params: PanelKeyParams, body: NoBody, response: { 200: PanelRevokedKey, '4xx': ErrorResponse } };
    app.post('/panel/api/keys/:id/revoke', { schema: revoke }, async (req) =>
      revokeAccountKey(deps, { accountId: sessionOf(req).account_id, keyId: req.params.id }),
    );
  };
}
