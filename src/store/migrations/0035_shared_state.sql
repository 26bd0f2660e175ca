-- State that every process of a cluster must share, so that no process keeps what another needs.
--
-- Requests counted for the rate limits (http/rate-limit.ts). Each process counts in memory and
-- adds its counts here about once a second, in one statement for every key it saw, which also
-- reads back what the other processes counted. One row per key, window and process: a process
-- only ever updates its own rows, so no row is hot however many requests one account sends, and
-- the cluster's count of a key is the sum of its rows. Unlogged: counts last a minute and are
-- worth no WAL and no fsync; a crash of the database server empties the table, which only lets
-- the current window start again from zero.
create unlogged table rate_counts (
  key         text not null,
  -- the end of the fixed window, in milliseconds since the epoch (the limit's own clock)
  window_end  bigint not null,
  -- a random id per process, chosen at its start
  node        uuid not null,
  count       integer not null,
  primary key (key, window_end, node)
);
create index rate_counts_window_end on rate_counts (window_end);

-- Processes keep the service's PKI in memory (keys imported as CryptoKeys, certificates parsed).
-- Any change of the stored material (a renewed OCSP responder certificate, an operator's CA put
-- in place of the generated one) is announced on channel sello_changes by the transaction that
-- makes it: NOTIFY is delivered at commit, and never for a change rolled back. Every listening
-- process then takes the stored material up (store/change-listener.ts).
create function announce_pki_material_change() returns trigger language plpgsql as $$
begin
  perform pg_notify('sello_changes', 'pki_material');
  return null;
end
$$;
create trigger pki_material_changed after insert or update or delete on pki_material
  for each statement execute function announce_pki_material_change();
