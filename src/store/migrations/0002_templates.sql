-- Templates of an account (html, pdf, pdfmake, docx). The source is a blob (content-addressed);
-- the fields and tables detected when it was saved are kept so listing them needs no parsing.
create table templates (
  id          bigserial primary key,
  account_id  bigint not null references accounts(id),
  name        text not null,
  type        text not null check (type in ('html', 'pdf', 'pdfmake', 'docx')),
  source_sha256 text not null,
  fields      jsonb not null,
  tables      jsonb not null,
  created_at  timestamptz not null default now(),
  updated_at  timestamptz not null default now(),
  unique (account_id, name)
);
