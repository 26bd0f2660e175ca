// The panel's usage: what is left, the packages, and the consumption of each of the last six
// calendar months (UTC) for the chart, all through the use cases of /api/account.
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import type { Deps } from '../../domain/deps.js';
import { accountPackages, accountSummary } from '../../domain/packages/account-summary.js';
import { consumptionReport } from '../../domain/packages/consumption-report.js';
import { ErrorResponse } from '../../schemas/common.js';
import { PanelUsage } from '../../schemas/panel.js';
import { sessionOf } from './session-of.js';

const MONTHS = 6;

export function panelUsageRoutes(deps: Deps) {
  return async function routes(fastify: FastifyInstance) {
    const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
    app.get('/panel/api/usage', { schema: { hide: true, response: { 200: PanelUsage, '4xx': ErrorResponse } } }, async (req) => {
      const accountId = sessionOf(req).account_id;
      const now = deps.clock.now();
      const months = [];
      for (let i = MONTHS - 1; i >= 0; i--) {
        const from = Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - i, 1);
        const to = Math.min(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - i + 1, 1), now.getTime() + 1);
        months.push(await consumptionReport(deps, { accountId, from: String(from), to: String(to) }));
      }
      const [summary, packages] = await Promise.all([accountSummary(deps, { accountId }), accountPackages(deps, { accountId })]);
      return { remaining: summary.remaining, packages, months };
    });
  };
}
