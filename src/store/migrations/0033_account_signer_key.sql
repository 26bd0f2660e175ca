-- The key type of the one-time signer certificates of an account's documents (docs/configuration.md,
-- "Signer keys"): 'rsa-2048' (every validator accepts it) or 'ecdsa-p256' (six times cheaper to
-- make; iText 5 refuses it). Null: the operator's SELLO_SIGNER_KEY, read at each signature. Set with
-- `sello account update --signer-key rsa-2048|ecdsa-p256|default`.
alter table accounts add column signer_key text
  check (signer_key in ('rsa-2048', 'ecdsa-p256'));
