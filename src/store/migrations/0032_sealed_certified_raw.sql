-- The raw message of a certified email holds its download link and its open image's link: random
-- tokens of which this table keeps only the SHA-256, since the link serves the document and records
-- the retrieval that the evidence states. Its blob is therefore stored sealed under the master key
-- (pki/secret-box.ts), and raw_blob names that blob; raw_sha256 stays the SHA-256 of the bytes the
-- SMTP server received, which the evidence states. Rows from before: raw_blob null, the message in
-- the clear under raw_sha256.
alter table certified_emails add column raw_blob text;
