-- A password-reset code belongs to the request that asked for it: the request's id
-- (answered to the asker only) is kept as a SHA-256 digest beside the code, and a
-- finish must name it. So a stranger's guesses for an email can neither use up nor
-- replace the owner's code, and several requests may have live codes at once.
-- Verification codes (and resets asked without an id) keep request ''.
CREATE TABLE email_codes_by_request (
    user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    purpose TEXT NOT NULL,
    request TEXT NOT NULL DEFAULT '',
    digest TEXT NOT NULL,
    tries INTEGER NOT NULL DEFAULT 0,
    expires_at REAL NOT NULL,
    created_at REAL NOT NULL,
    PRIMARY KEY (user_id, purpose, request)
);
INSERT INTO email_codes_by_request (user_id, purpose, request, digest, tries, expires_at, created_at)
    SELECT user_id, purpose, '', digest, tries, expires_at, created_at FROM email_codes;
DROP TABLE email_codes;
ALTER TABLE email_codes_by_request RENAME TO email_codes;
CREATE INDEX email_codes_expiry ON email_codes (expires_at);
