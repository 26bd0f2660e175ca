-- Reviews decided by an external verification provider instead of a person of the account: who
-- decides (manual, or the provider's name) and the provider's session, which its result names.
alter table identity_reviews add column provider text not null default 'manual';
alter table identity_reviews add column provider_session text;
