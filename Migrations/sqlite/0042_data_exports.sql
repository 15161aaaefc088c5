-- Each person's data on request: one archive per export, kept until it expires.
CREATE TABLE data_exports (
    id TEXT PRIMARY KEY,
    user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    requested_by TEXT,
    status TEXT NOT NULL CHECK (status IN ('pending', 'ready', 'expired')),
    requested_at REAL NOT NULL,
    ready_at REAL,
    expires_at REAL,
    size INTEGER,
    archive BLOB
);
CREATE INDEX data_exports_user ON data_exports (user_id, requested_at);
