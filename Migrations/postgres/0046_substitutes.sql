-- Substitutes: a player who cannot come asks for someone to take their place. The place
-- is offered to up to 20 people found nearby (or to one person the player names); the
-- first to accept takes it, and the request is filled.
CREATE TABLE substitute_requests (
    id uuid PRIMARY KEY,
    event_id uuid NOT NULL REFERENCES events(id) ON DELETE CASCADE,
    requester_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    status text NOT NULL CHECK (status IN ('open', 'filled', 'withdrawn', 'expired')),
    created_at timestamptz NOT NULL,
    -- As the player was told (a named person the game cannot take is counted, not told).
    offered_count integer NOT NULL,
    expires_at timestamptz NOT NULL,
    filled_by uuid REFERENCES users(id) ON DELETE SET NULL,
    closed_at timestamptz
);
CREATE INDEX substitute_requests_event ON substitute_requests (event_id, status);
CREATE INDEX substitute_requests_requester ON substitute_requests (requester_id, created_at);
CREATE TABLE substitute_offers (
    request_id uuid NOT NULL REFERENCES substitute_requests(id) ON DELETE CASCADE,
    user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    created_at timestamptz NOT NULL,
    PRIMARY KEY (request_id, user_id)
);
CREATE INDEX substitute_offers_user ON substitute_offers (user_id);
