-- Why a document's NOM-151 stamp has not been made yet: the last failed attempt of its nom151_stamp
-- job, one row per document and rendition, kept until the stamp is stored (then the stamps row says
-- it is done). attempt = max_attempts: the job used its last attempt and waits for the operator.
create table stamp_failures (
  document_id  bigint not null references documents(id) on delete cascade,
  subject      text not null check (subject in ('original', 'universal')),
  reason       text not null,
  attempt      integer not null,
  max_attempts integer not null,
  failed_at    timestamptz not null,
  primary key (document_id, subject)
);
