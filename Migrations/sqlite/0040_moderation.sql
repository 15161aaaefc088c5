-- Moderation: a person may be limited (out of people nearby, sending no invitations)
-- and suspended until a time or for good (suspended_until NULL with suspended_at set).
-- A report ends with its outcome, who decided and when. The audit log is read in the
-- order rows were added (rowid here; a sequence on PostgreSQL).
ALTER TABLE users ADD COLUMN limited_at REAL;
ALTER TABLE users ADD COLUMN suspended_at REAL;
ALTER TABLE users ADD COLUMN suspended_until REAL;
ALTER TABLE reports ADD COLUMN outcome TEXT;
ALTER TABLE reports ADD COLUMN resolved_by TEXT;
ALTER TABLE reports ADD COLUMN resolved_at REAL;
CREATE INDEX reports_target ON reports (target_id, status);
