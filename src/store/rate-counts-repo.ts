// SQL of the shared request counts (migration 0035, http/rate-limit.ts): one statement adds this
// process's new counts and reads back the other processes' counts of the same keys.
import { sql } from 'kysely';
import type { Db } from './db.js';

/** A key in one window: what this process counted since its last exchange (`added`, may be 0). */
export interface CountedKey {
  key: string;
  windowEnd: number;
  added: number;
}

/** Rows of windows that ended more than this long ago are deleted (clocks of two hosts differ a little). */
const SWEEP_AFTER_MS = 120_000;
/** At most this many old rows deleted per exchange: the statement stays short after a long pause. */
const SWEEP_BATCH = 1000;

/**
 * Adds `added` to this node's row of each key and answers, per key, the sum of the other nodes'
 * rows. Also deletes a batch of rows of long-ended windows (any node's: a killed process never
 * deletes its own), skipping rows another process is deleting, so that two exchanges never wait on
 * each other. One round trip, one transaction.
 */
export async function exchangeCounts(
  db: Db,
  node: string,
  keys: CountedKey[],
  nowMs: number,
): Promise<{ key: string; windowEnd: number; others: number }[]> {
  // A data-modifying CTE is not seen by the final SELECT of its statement (same snapshot): the
  // SELECT reads the other nodes' rows only, and this node's own count is the one in memory.
  const r = await sql<{ key: string; window_end: string; others: number }>`
    with input as (
      select * from unnest(${keys.map((k) => k.key)}::text[], ${keys.map((k) => k.windowEnd)}::bigint[], ${keys.map((k) => k.added)}::int[])
        as t(key, window_end, added)
    ), written as (
      insert into rate_counts (key, window_end, node, count)
      select key, window_end, ${node}::uuid, added from input where added > 0
      on conflict (key, window_end, node) do update set count = rate_counts.count + excluded.count
    ), swept as (
      delete from rate_counts where ctid in (
        select ctid from rate_counts where window_end < ${nowMs - SWEEP_AFTER_MS}::bigint
        limit ${SWEEP_BATCH} for update skip locked)
    )
    select c.key, c.window_end::text as window_end, sum(c.count)::int as others
    from rate_counts c join input i on c.key = i.key and c.window_end = i.window_end
    where c.node <> ${node}::uuid
    group by c.key, c.window_end`.execute(db);
  return r.rows.map((x) => ({ key: x.key, windowEnd: Number(x.window_end), others: x.others }));
}
