-- The console's abuse panel: registrations and failed sign-ins per network and minute
-- (an IPv4 /24, an IPv6 /48), kept two hours, shared by every instance.
CREATE TABLE network_activity (
    network TEXT NOT NULL,
    kind TEXT NOT NULL CHECK (kind IN ('registration', 'failed_sign_in')),
    minute REAL NOT NULL,
    count INTEGER NOT NULL,
    PRIMARY KEY (network, kind, minute)
);
CREATE INDEX network_activity_minute ON network_activity (minute);
-- Address ranges and email domains no account may be registered from.
CREATE TABLE registration_blocks (
    id TEXT PRIMARY KEY,
    kind TEXT NOT NULL CHECK (kind IN ('network', 'email_domain')),
    value TEXT NOT NULL,
    reason TEXT NOT NULL,
    created_by TEXT REFERENCES users(id) ON DELETE SET NULL,
    created_at REAL NOT NULL,
    UNIQUE (kind, value)
);
-- The networks (an IPv4 /24, an IPv6 /48) each account signed in from, the 20 latest:
-- what staff see on an account, to block a range that signs up throwaway accounts.
CREATE TABLE sign_in_networks (
    user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    network TEXT NOT NULL,
    last_used_at REAL NOT NULL,
    PRIMARY KEY (user_id, network)
);
