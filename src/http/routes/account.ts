// GET /api/account, /api/account/packages, /api/account/consumption: the account's packages and
// consumption (decisions.md "Accounts and packages"). Operators change packages with the CLI.
// GET and POST /api/account/brand: the sender's brand and the embedding origins (docs/api.md).
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import type { Deps } from '../../domain/deps.js';
import { accountPackages, accountSummary } from '../../domain/packages/account-summary.js';
import { consumptionReport } from '../../domain/packages/consumption-report.js';
import { AccountPackages, AccountSummary, ConsumptionQuery, ConsumptionReport } from '../../schemas/accounts.js';
import { ErrorResponse } from '../../schemas/common.js';
import { AccountBrand, AccountBrandUpdate } from '../../schemas/brand.js';
import { getAccountBrand, updateAccountBrand } from '../../domain/accounts/brand-settings.js';

const tags = ['account'];
const security = [{ hmac: [] }];

export function accountRoutes(deps: Deps) {
  return async function routes(fastify: FastifyInstance) {
    const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
    app.get(
      '/api/account',
      {
        schema: {
          operationId: 'getAccount',
          summary: 'Remaining packages: what is left of each kind of piece',
          tags,
          security,
          response: { 200: AccountSummary, '4xx': ErrorResponse },
        },
      },
      async (req) => accountSummary(deps, { accountId: req.account!.id }),
    );
    app.get(
      '/api/account/packages',
      {
        schema: {
          operationId: 'listAccountPackages',
          summary: 'Package detail: pieces included and used, and the validity window, per package',
          tags,
          security,
          response: { 200: AccountPackages, '4xx': ErrorResponse },
        },
      },
      async (req) => accountPackages(deps, { accountId: req.account!.id }),
    );
    app.get(
      '/api/account/consumption',
      {
        schema: {
          operationId: 'getAccountConsumption',
          summary: 'Consumption report: pieces consumed between two instants, per kind and channel',
          tags,
          security,
          querystring: ConsumptionQuery,
          response: { 200: ConsumptionReport, '4xx': ErrorResponse },
        },
      },
      async (req) => consumptionReport(deps, { accountId: req.account!.id, ...req.query }),
    );
    app.get(
      '/api/account/brand',
      {
        schema: {
          operationId: 'getAccountBrand',
          summary: "The sender's brand and the origins allowed to frame the signer pages",
          tags,
          security,
          response: { 200: AccountBrand, '4xx': ErrorResponse },
        },
      },
      async (req) => getAccountBrand(deps, { accountId: req.account!.id }),
    );
    app.post(
      '/api/account/brand',
      {
        schema: {
          operationId: 'updateAccountBrand',
          summary: "Changes the sender's brand or the frame origins: the fields given, each checked",
          tags,
          security,
          body: AccountBrandUpdate,
          response: { 200: AccountBrand, '4xx': ErrorResponse },
        },
      },
      async (req) => updateAccountBrand(deps, { accountId: req.account!.id, body: req.body }),
    );
  };
}
