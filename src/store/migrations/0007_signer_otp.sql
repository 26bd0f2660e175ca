-- One-time codes for the EMAIL authority: only a hash of the code is kept, with its expiry and
-- the wrong attempts made; verified_at records when the signer proved the code.
alter table signers
  add column otp_hash bytea,
  add column otp_expires_at timestamptz,
  add column otp_sent_at timestamptz,
  add column otp_attempts integer not null default 0,
  add column verified_at timestamptz;
