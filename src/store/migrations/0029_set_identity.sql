-- Identity verification in document sets: a person of a set verifies once for all their documents
-- of the set. Their review (and its images) is kept on the first of their document signer rows,
-- as any review; set_signer_id says the decision applies to every row of that set signer.
alter table identity_reviews add column set_signer_id bigint references set_signers(id) on delete set null;
create index identity_reviews_set_signer on identity_reviews (set_signer_id) where set_signer_id is not null;
