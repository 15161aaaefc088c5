-- Accounts, sessions and the sports catalogue.
CREATE TABLE sports (
    slug text PRIMARY KEY,
    name text NOT NULL,
    bit integer NOT NULL UNIQUE CHECK (bit BETWEEN 0 AND 63)
);

CREATE TABLE users (
    id uuid PRIMARY KEY,
    email text NOT NULL,
    email_normalized text NOT NULL UNIQUE,
    name text NOT NULL,
    password_hash text NOT NULL,
    bio text NOT NULL DEFAULT '',
    image_url text,
    lat double precision,
    lon double precision,
    discoverable boolean NOT NULL DEFAULT false,
    version bigint NOT NULL DEFAULT 1,
    created_at timestamptz NOT NULL,
    updated_at timestamptz NOT NULL
);

CREATE TABLE user_sports (
    user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    sport_slug text NOT NULL REFERENCES sports(slug),
    PRIMARY KEY (user_id, sport_slug)
);

CREATE TABLE access_tokens (
    id uuid PRIMARY KEY,
    user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    token_hash text NOT NULL UNIQUE,
    user_agent text,
    created_at timestamptz NOT NULL,
    expires_at timestamptz NOT NULL,
    last_used_at timestamptz,
    revoked_at timestamptz
);
CREATE INDEX access_tokens_user ON access_tokens (user_id);

CREATE TABLE login_failures (
    subject text NOT NULL,
    failed_at timestamptz NOT NULL
);
CREATE INDEX login_failures_subject ON login_failures (subject, failed_at);
