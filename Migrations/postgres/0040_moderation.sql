-- Moderation: a person may be limited (out of people nearby, sending no invitations)
-- and suspended until a time or for good (suspended_until NULL with suspended_at set).
-- A report ends with its outcome, who decided and when. The audit log is read in the
-- order rows were added (a sequence here; rowid on SQLite).
ALTER TABLE users ADD COLUMN limited_at timestamptz;
ALTER TABLE users ADD COLUMN suspended_at timestamptz;
ALTER TABLE users ADD COLUMN suspended_until timestamptz;
ALTER TABLE reports ADD COLUMN outcome text;
ALTER TABLE reports ADD COLUMN resolved_by uuid;
ALTER TABLE reports ADD COLUMN resolved_at timestamptz;
CREATE INDEX reports_target ON reports (target_id, status);
ALTER TABLE audit_log ADD COLUMN seq bigint GENERATED ALWAYS AS IDENTITY;
CREATE INDEX audit_log_seq ON audit_log (seq);
