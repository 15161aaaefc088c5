-- A group can be reported too: staff close it as its owner would.
-- SQLite cannot change a CHECK: the table is made again with every row as it was.
CREATE TABLE reports_new (
    id TEXT PRIMARY KEY,
    reporter_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    target_type TEXT NOT NULL CHECK (target_type IN ('user', 'event', 'message', 'group')),
    target_id TEXT NOT NULL,
    reason TEXT NOT NULL,
    details TEXT,
    status TEXT NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'resolved')),
    created_at REAL NOT NULL,
    content TEXT,
    outcome TEXT,
    resolved_by TEXT,
    resolved_at REAL,
    UNIQUE (reporter_id, target_type, target_id)
);
INSERT INTO reports_new (id, reporter_id, target_type, target_id, reason, details, status, created_at, content, outcome, resolved_by, resolved_at)
SELECT id, reporter_id, target_type, target_id, reason, details, status, created_at, content, outcome, resolved_by, resolved_at FROM reports;
DROP TABLE reports;
ALTER TABLE reports_new RENAME TO reports;
CREATE INDEX reports_open ON reports (status, created_at);
CREATE INDEX reports_target ON reports (target_id, status);
