-- Fields signers fill (decisions.md, "Fields signers fill"): text, date, checkbox, initials and
-- dropdown boxes of a document, each assigned to one signer, who gives their values when signing.
-- The values are written into the PDF as AcroForm fields of the revision that signer signs; they
-- are kept here too, so the report and the webhook payload can list them without reading the file.
create table signer_fields (
  document_id   bigint not null references documents(id) on delete cascade,
  -- Stable and unique across documents: a set link's one sign body names fields of many documents.
  field_id      text not null unique,
  signer_row_id bigint not null references signers(id) on delete cascade,
  -- The sticker the create payload named (signer_fields[i].signer): whose signer fills the field.
  sticker_id    text not null,
  field_index   integer not null,
  type          text not null check (type in ('text', 'date', 'checkbox', 'initials', 'dropdown')),
  page          integer not null,
  lx double precision not null,
  ly double precision not null,
  tx double precision not null,
  ty double precision not null,
  required      boolean not null default false,
  label         text,
  format        text,
  options       jsonb,
  date_format   text,
  -- The value written into the signed revision (a string, or a checkbox's true/false); null until signed.
  value         jsonb,
  filled_at     timestamptz,
  primary key (document_id, field_id),
  unique (document_id, field_index)
);
create index signer_fields_signer on signer_fields (signer_row_id);

-- A signature made in two steps (own certificate, SAT e.firma, CSC) writes the values into the
-- revision it prepares; they are recorded as the signer's only when that signature is finished.
alter table sat_preparations add column field_values jsonb;
-- A CSC signer gives the values before leaving for the provider; the revision is prepared on return.
alter table csc_authorizations add column field_values jsonb;
