// The panel's brand settings (the same fields and checks as GET and POST /api/account/brand), and
// the operator's brand, which the sign-in page shows before anyone is signed in to an account.
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import type { Deps } from '../../domain/deps.js';
import { getAccountBrand, updateAccountBrand } from '../../domain/accounts/brand-settings.js';
import { AccountBrand, AccountBrandUpdate, OperatorBrandView } from '../../schemas/brand.js';
import { ErrorResponse } from '../../schemas/common.js';
import { sessionOf } from './session-of.js';

export function panelBrandRoutes(deps: Deps) {
  return async function routes(fastify: FastifyInstance) {
    const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
    app.get('/panel/api/brand', { schema: { hide: true, response: { 200: AccountBrand, '4xx': ErrorResponse } } }, async (req) =>
      getAccountBrand(deps, { accountId: sessionOf(req).account_id }),
    );
    app.post(
      '/panel/api/brand',
      { schema: { hide: true, body: AccountBrandUpdate, response: { 200: AccountBrand, '4xx': ErrorResponse } } },
      async (req) => updateAccountBrand(deps, { accountId: sessionOf(req).account_id, body: req.body }),
    );
    const operator = deps.config.operatorBrand;
    app.get(
      '/panel/api/operator-brand',
      { schema: { hide: true, response: { 200: OperatorBrandView, '4xx': ErrorResponse } }, config: { panelPublic: true } },
      async () => ({
        name: operator.name,
        colour: operator.colour,
        logo: operator.logoPng ? `data:image/png;base64,${operator.logoPng.toString('base64')}` : null,
      }),
    );
  };
}
