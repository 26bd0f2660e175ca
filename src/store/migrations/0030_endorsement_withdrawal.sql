-- A pending endorsement can be withdrawn by the account (DELETE /api/document/{ticket}/endorsements/{id}):
-- its endorser's link stops working, the chain is as it was, and a new endorsement may be asked for.
-- The reason is the account's own note, optional.
alter table endorsements drop constraint endorsements_status_check;
alter table endorsements add constraint endorsements_status_check
  check (status in ('pending', 'signed', 'declined', 'withdrawn'));
alter table endorsements add column withdrawn_at timestamptz;
alter table endorsements add column withdrawal_reason text;
