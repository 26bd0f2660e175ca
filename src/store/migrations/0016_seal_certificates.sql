-- The service seals documents it makes itself (the history as PDF) with one-time certificates
-- naming the service: recorded like signer certificates, so the OCSP responder answers for them.
alter table issued_certificates drop constraint issued_certificates_kind_check;
alter table issued_certificates add constraint issued_certificates_kind_check check (kind in ('signer', 'tsa', 'ocsp', 'seal'));
