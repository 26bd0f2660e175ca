-- What signers see of the account that asks them to sign: its name (already there) and a logo the
-- operator sets (`sello account update --logo FILE.png`), a small PNG kept in the row.
alter table accounts add column logo_png bytea;
