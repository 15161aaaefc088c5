-- A reset code asked from a place the account knows is never trimmed by the codes of
-- strangers' asks (an account keeps the newest 10 of those).
ALTER TABLE email_codes ADD COLUMN known_place boolean NOT NULL DEFAULT false;
