-- Endorsements (decisions.md "Endorsements"): a completed document passes from holder to holder,
-- each endorsement a further signature revision made by the endorser. The endorser signs through
-- the signer page like any signer (same link, codes, e.firma), so each is a signers row with role
-- 'endorser'; the listing, the workflow and the completion look at role 'signer' only.
alter table signers add column role text not null default 'signer' check (role in ('signer', 'endorser'));

-- One box per signer and authority among the document's signers; an endorser may be one of them.
alter table signers drop constraint signers_document_id_authority_data_key;
create unique index signers_document_authority_data on signers (document_id, authority, data) where role = 'signer';

create table endorsements (
  id             bigserial primary key,
  endorsement_id text not null unique,
  document_id    bigint not null references documents(id) on delete cascade,
  -- 1 for the first endorsement of the document, then 2, 3…: the chain's order
  sequence       integer not null,
  type           text not null check (type in ('propiedad', 'procuracion', 'garantia')),
  text           text not null,
  endorser_name  text not null,
  endorsee_name  text not null,
  endorsee_email text,
  endorsee_rfc   text,
  signer_row_id  bigint not null unique references signers(id) on delete cascade,
  -- pending until the endorser signs; declined when the endorser refuses (the chain is unchanged)
  status         text not null default 'pending' check (status in ('pending', 'signed', 'declined')),
  created_at     timestamptz not null,
  signed_at      timestamptz,
  declined_at    timestamptz,
  unique (document_id, sequence)
);
-- At most one endorsement waiting for its endorser per document: the chain is signed in order.
create unique index endorsements_one_pending on endorsements (document_id) where status = 'pending';
