-- Sign-in with Apple, Google and Facebook. An account's email is verified when a
-- provider vouched for it (and, later, by a code sent to it); only then may a provider
-- sign-in with the same verified email join the account. An account made by a provider
-- that gave no email has email '' (shown as null) and email_normalized 'none:<id>'; one
-- with no password has password_hash '' (which no password matches).
ALTER TABLE users ADD COLUMN email_verified INTEGER NOT NULL DEFAULT 0;

-- One row per provider account: (provider, subject) signs in as user_id. At most one
-- identity per provider per user.
CREATE TABLE identities (
    provider TEXT NOT NULL,
    subject TEXT NOT NULL,
    user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    email TEXT,
    created_at REAL NOT NULL,
    PRIMARY KEY (provider, subject),
    UNIQUE (user_id, provider)
);

-- ID tokens already used to sign in or link (a digest of the nonce, or of the token
-- without one), until the token expires: the same token cannot be used twice.
CREATE TABLE used_tokens (
    digest TEXT PRIMARY KEY,
    expires_at REAL NOT NULL
);
CREATE INDEX used_tokens_expiry ON used_tokens (expires_at);
