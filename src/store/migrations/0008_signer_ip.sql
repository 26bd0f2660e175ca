-- The address a signer signed or rejected from, for the signature report and the history.
alter table signers add column action_ip text;
