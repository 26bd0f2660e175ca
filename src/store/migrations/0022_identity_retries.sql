-- How many more attempts a signer whose identity verification was rejected may make (0: none, the
-- decisions.md default "may not sign unless the account allows a retry"). Set with
-- `sello account update --identity-retries N`.
alter table accounts add column identity_retries integer not null default 0 check (identity_retries between 0 and 5);
