-- A SCAL2 credential whose provider authorizes it through OAuth 2.0 (CSC API v2 authMode
-- `oauth2code`) signs only with an authorization bound to the hashes it signs: after the first
-- return (scope `service`) the service prepares the revisions and sends the signer to the provider
-- again with scope `credential` and those hashes. The second return signs what was prepared then:
-- the credential, the signature algorithm and each revision's preparation and hash, kept sealed
-- under the master key (null for a first step).
alter table csc_authorizations add column prepared_sealed bytea;
