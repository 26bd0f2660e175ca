-- Signers of the CERT authority sign with their own certificate from a CA the operator trusts, in
-- the same two requests as an SAT e.firma (prepare, finish). The sticker may say which subject
-- attribute of that certificate must hold which value (certificate_match: {field, value}) instead
-- of the signer's email. A preparation now says whose authority made it; the RFC and the SAT's
-- certificate number exist only for the SAT's.
alter table signers add column certificate_match jsonb;
alter table sat_preparations add column authority text not null default 'SAT' check (authority in ('SAT', 'CERT'));
alter table sat_preparations alter column rfc drop not null;
alter table sat_preparations alter column certificate_number drop not null;
-- A signature with the signer's own certificate draws no image, like an e.firma's.
alter table signers drop constraint signers_signature_type_check;
alter table signers add constraint signers_signature_type_check check (signature_type in ('drawn', 'typed', 'efirma', 'certificate'));
