-- Accounts, sessions and the sports catalogue.
-- SQLite: UUIDs are TEXT, instants are REAL seconds since 1970, booleans INTEGER 0/1.
CREATE TABLE sports (
    slug TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    bit INTEGER NOT NULL UNIQUE CHECK (bit BETWEEN 0 AND 63)
);

CREATE TABLE users (
    id TEXT PRIMARY KEY,
    email TEXT NOT NULL,
    email_normalized TEXT NOT NULL UNIQUE,
    name TEXT NOT NULL,
    password_hash TEXT NOT NULL,
    bio TEXT NOT NULL DEFAULT '',
    image_url TEXT,
    lat REAL,
    lon REAL,
    discoverable INTEGER NOT NULL DEFAULT 0,
    version INTEGER NOT NULL DEFAULT 1,
    created_at REAL NOT NULL,
    updated_at REAL NOT NULL
);

CREATE TABLE user_sports (
    user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    sport_slug TEXT NOT NULL REFERENCES sports(slug),
    PRIMARY KEY (user_id, sport_slug)
);

CREATE TABLE access_tokens (
    id TEXT PRIMARY KEY,
    user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    token_hash TEXT NOT NULL UNIQUE,
    user_agent TEXT,
    created_at REAL NOT NULL,
    expires_at REAL NOT NULL,
    last_used_at REAL,
    revoked_at REAL
);
CREATE INDEX access_tokens_user ON access_tokens (user_id);

CREATE TABLE login_failures (
    subject TEXT NOT NULL,
    failed_at REAL NOT NULL
);
CREATE INDEX login_failures_subject ON login_failures (subject, failed_at);
