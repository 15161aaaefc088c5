-- Staff: a person may be a moderator or an admin (admins do what moderators do, and
-- manage staff). The audit log: every staff action and every grant of a role, one row
-- each, never changed or removed (the triggers refuse it, whoever asks).
ALTER TABLE users ADD COLUMN staff_role TEXT CHECK (staff_role IN ('moderator', 'admin'));
CREATE TABLE audit_log (
    id TEXT PRIMARY KEY,
    at REAL NOT NULL,
    actor_id TEXT,
    actor TEXT NOT NULL,
    action TEXT NOT NULL,
    target_type TEXT NOT NULL,
    target_id TEXT NOT NULL,
    reason TEXT NOT NULL,
    details TEXT NOT NULL DEFAULT '{}'
);
CREATE INDEX audit_log_at ON audit_log (at, id);
CREATE INDEX audit_log_target ON audit_log (target_id, at);
CREATE TRIGGER audit_log_no_update BEFORE UPDATE ON audit_log BEGIN SELECT RAISE(ABORT, 'audit_log is append-only'); END;
CREATE TRIGGER audit_log_no_delete BEFORE DELETE ON audit_log BEGIN SELECT RAISE(ABORT, 'audit_log is append-only'); END;
-- INSERT OR REPLACE removes the row it replaces without a delete trigger (recursive
-- triggers are off): a row whose id is taken is refused before that.
CREATE TRIGGER audit_log_no_replace BEFORE INSERT ON audit_log WHEN EXISTS (SELECT 1 FROM audit_log WHERE id = NEW.id) BEGIN SELECT RAISE(ABORT, 'audit_log is append-only'); END;
