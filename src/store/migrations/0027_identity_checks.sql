-- The built-in identity checks (docs/api.md, "Built-in checks").
-- What was measured of each captured image at capture (size, sharpness, glare, brightness).
alter table identity_evidence add column quality jsonb;

-- The results of the checks run on a submitted review (machine-readable zone, name, expiry, image
-- quality, face comparison): null until they ran. Kept with the review after its images are deleted;
-- it holds no document number, birth date or zone text (the reviewer reads those on the images).
alter table identity_reviews add column automatic_checks jsonb;

-- Who decides a review when every check passes: 'manual' (a person of the account, always) or
-- 'automatic' (approved by the checks; a review with any check not passed still waits for a
-- person). Set with `sello account update --identity-decision manual|automatic`.
alter table accounts add column identity_decision text not null default 'manual'
  check (identity_decision in ('manual', 'automatic'));
