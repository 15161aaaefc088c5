-- Substitutes: a player who cannot come asks for someone to take their place. The place
-- is offered to up to 20 people found nearby (or to one person the player names); the
-- first to accept takes it, and the request is filled.
CREATE TABLE substitute_requests (
    id TEXT PRIMARY KEY,
    event_id TEXT NOT NULL REFERENCES events(id) ON DELETE CASCADE,
    requester_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    status TEXT NOT NULL CHECK (status IN ('open', 'filled', 'withdrawn', 'expired')),
    created_at REAL NOT NULL,
    -- As the player was told (a named person the game cannot take is counted, not told).
    offered_count INTEGER NOT NULL,
    expires_at REAL NOT NULL,
    filled_by TEXT REFERENCES users(id) ON DELETE SET NULL,
    closed_at REAL
);
CREATE INDEX substitute_requests_event ON substitute_requests (event_id, status);
CREATE INDEX substitute_requests_requester ON substitute_requests (requester_id, created_at);
CREATE TABLE substitute_offers (
    request_id TEXT NOT NULL REFERENCES substitute_requests(id) ON DELETE CASCADE,
    user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    created_at REAL NOT NULL,
    PRIMARY KEY (request_id, user_id)
);
CREATE INDEX substitute_offers_user ON substitute_offers (user_id);
