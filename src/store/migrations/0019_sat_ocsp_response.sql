-- The SAT's OCSP answer for an e.firma certificate, as obtained when the signature was prepared
-- (null when the responder was not configured or could not be reached): the universal rendition
-- embeds it when the responder cannot be reached at the time it is built.
alter table sat_preparations add column ocsp_response bytea;
