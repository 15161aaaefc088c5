-- Appeals: the person a staff action reached may appeal it once; another member of
-- staff upholds or reverses it.
CREATE TABLE appeals (
    id TEXT PRIMARY KEY,
    user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    action_id TEXT NOT NULL UNIQUE,
    statement TEXT NOT NULL,
    status TEXT NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'upheld', 'reversed')),
    created_at REAL NOT NULL,
    decided_by TEXT,
    decided_at REAL
);
CREATE INDEX appeals_open ON appeals (status, created_at);
