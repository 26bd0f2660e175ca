// GET /api/account/consumption?from=&to=: what the account consumed between two instants (epoch ms,
// `from` inclusive, `to` exclusive), per kind and per channel.
import { invalid } from '../errors.js';
import type { Deps } from '../deps.js';
import { consumptionCounts } from '../../store/packages-repo.js';
import { PIECE_KINDS } from './piece-kinds.js';
import type { Static } from '@sinclair/typebox';
import type { ConsumptionQuery, ConsumptionReport } from '../../schemas/accounts.js';

export type { ConsumptionReport };

const MAX_SPAN_MS = 366 * 86_400_000 * 10;

// The schema takes the bounds as strings; they are read as epoch ms here, where a bad one is named
// `from` or `to` as the API has always named it (a schema pattern would say `querystring.from`).
function epochMs(field: 'from' | 'to', v: string | undefined): Date | undefined {
  if (v === undefined || v === '') {
    return undefined;
  }
  if (!/^\d{1,15}$/.test(v)) {
    throw invalid(field, 'expected milliseconds since 1970-01-01 (epoch ms)');
  }
  return new Date(Number(v));
}

export async function consumptionReport(
  deps: Pick<Deps, 'db' | 'clock'>,
  o: { accountId: string } & Static<typeof ConsumptionQuery>,
): Promise<ConsumptionReport> {
  const to = epochMs('to', o.to) ?? deps.clock.now();
  // Without `from`: the 30 days before `to`.
  const from = epochMs('from', o.from) ?? new Date(to.getTime() - 30 * 86_400_000);
  if (from.getTime() >= to.getTime()) {
    throw invalid('from', 'must be before to');
  }
  if (to.getTime() - from.getTime() > MAX_SPAN_MS) {
    throw invalid('from', 'the span from..to is at most ten years');
  }
  const rows = await consumptionCounts(deps.db, { accountId: o.accountId, from, to });
  const consumption = Object.fromEntries(
    PIECE_KINDS.map((k) => [k, { total: 0, channels: {} as Record<string, number> }]),
  ) as ConsumptionReport['consumption'];
  for (const r of rows) {
    consumption[r.kind].total += r.count;
    consumption[r.kind].channels[r.channel] = r.count;
  }
  return { from: from.toISOString(), to: to.toISOString(), consumption };
}
