-- A CSC signer of a document set authorizes at their provider once for every document of the set:
-- the return signs each of them and sends the signer back to the set's page, whose link token is
-- kept sealed here for that (null for an authorization made from a document's own link).
alter table csc_authorizations add column set_token_sealed bytea;
