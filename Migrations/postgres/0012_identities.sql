-- Sign-in with Apple, Google and Facebook. An account's email is verified when a
-- provider vouched for it (and, later, by a code sent to it); only then may a provider
-- sign-in with the same verified email join the account. An account made by a provider
-- that gave no email has email '' (shown as null) and email_normalized 'none:<id>'; one
-- with no password has password_hash '' (which no password matches).
ALTER TABLE users ADD COLUMN email_verified boolean NOT NULL DEFAULT false;

-- One row per provider account: (provider, subject) signs in as user_id. At most one
-- identity per provider per user.
CREATE TABLE identities (
    provider text NOT NULL,
    subject text NOT NULL,
    user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    email text,
    created_at timestamptz NOT NULL,
    PRIMARY KEY (provider, subject),
    UNIQUE (user_id, provider)
);

-- ID tokens already used to sign in or link (a digest of the nonce, or of the token
-- without one), until the token expires: the same token cannot be used twice.
CREATE TABLE used_tokens (
    digest text PRIMARY KEY,
    expires_at timestamptz NOT NULL
);
CREATE INDEX used_tokens_expiry ON used_tokens (expires_at);
