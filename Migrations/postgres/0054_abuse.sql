-- The console's abuse panel: registrations and failed sign-ins per network and minute
-- (an IPv4 /24, an IPv6 /48), kept two hours, shared by every instance.
CREATE TABLE network_activity (
    network text NOT NULL,
    kind text NOT NULL CHECK (kind IN ('registration', 'failed_sign_in')),
    minute timestamptz NOT NULL,
    count integer NOT NULL,
    PRIMARY KEY (network, kind, minute)
);
CREATE INDEX network_activity_minute ON network_activity (minute);
-- Address ranges and email domains no account may be registered from.
CREATE TABLE registration_blocks (
    id uuid PRIMARY KEY,
    kind text NOT NULL CHECK (kind IN ('network', 'email_domain')),
    value text NOT NULL,
    reason text NOT NULL,
    created_by uuid REFERENCES users(id) ON DELETE SET NULL,
    created_at timestamptz NOT NULL,
    UNIQUE (kind, value)
);
-- The networks (an IPv4 /24, an IPv6 /48) each account signed in from, the 20 latest:
-- what staff see on an account, to block a range that signs up throwaway accounts.
CREATE TABLE sign_in_networks (
    user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    network text NOT NULL,
    last_used_at timestamptz NOT NULL,
    PRIMARY KEY (user_id, network)
);
