-- A photo can be reported too: staff take it down from every variant and every place it shows.
-- SQLite cannot change a CHECK: the table is made again with every row as it was.
CREATE TABLE reports_new (
    id TEXT PRIMARY KEY,
    reporter_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    target_type TEXT NOT NULL CHECK (target_type IN ('user', 'event', 'message', 'group', 'photo')),
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
-- Where an upload shows is found from the upload (a report, a deletion of uploads).
CREATE INDEX users_photo ON users (photo_id) WHERE photo_id IS NOT NULL;
CREATE INDEX events_cover ON events (cover_id) WHERE cover_id IS NOT NULL;
CREATE INDEX sport_groups_cover ON sport_groups (cover_id) WHERE cover_id IS NOT NULL;
