-- One-time codes mailed to an account's address: 'verify' proves the address,
-- 'reset' sets a new password. One live code per account and purpose (a new one
-- replaces it); kept as a SHA-256 digest; void after 5 wrong tries or at expires_at.
CREATE TABLE email_codes (
    user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    purpose text NOT NULL,
    digest text NOT NULL,
    tries integer NOT NULL DEFAULT 0,
    expires_at timestamptz NOT NULL,
    created_at timestamptz NOT NULL,
    PRIMARY KEY (user_id, purpose)
);
CREATE INDEX email_codes_expiry ON email_codes (expires_at);
