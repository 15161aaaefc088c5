-- A password-reset code belongs to the request that asked for it: the request's id
-- (answered to the asker only) is kept as a SHA-256 digest beside the code, and a
-- finish must name it. So a stranger's guesses for an email can neither use up nor
-- replace the owner's code, and several requests may have live codes at once.
-- Verification codes (and resets asked without an id) keep request ''.
ALTER TABLE email_codes ADD COLUMN request text NOT NULL DEFAULT '';
ALTER TABLE email_codes DROP CONSTRAINT email_codes_pkey;
ALTER TABLE email_codes ADD PRIMARY KEY (user_id, purpose, request);
