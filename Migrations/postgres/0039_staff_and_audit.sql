-- Staff: a person may be a moderator or an admin (admins do what moderators do, and
-- manage staff). The audit log: every staff action and every grant of a role, one row
-- each, never changed or removed (the triggers refuse it, whoever asks).
ALTER TABLE users ADD COLUMN staff_role text CHECK (staff_role IN ('moderator', 'admin'));
CREATE TABLE audit_log (
    id uuid PRIMARY KEY,
    at timestamptz NOT NULL,
    actor_id uuid,
    actor text NOT NULL,
    action text NOT NULL,
    target_type text NOT NULL,
    target_id text NOT NULL,
    reason text NOT NULL,
    details text NOT NULL DEFAULT '{}'
);
CREATE INDEX audit_log_at ON audit_log (at, id);
CREATE INDEX audit_log_target ON audit_log (target_id, at);
CREATE FUNCTION audit_log_append_only() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'audit_log is append-only'; END $$;
CREATE TRIGGER audit_log_no_change BEFORE UPDATE OR DELETE ON audit_log FOR EACH ROW EXECUTE FUNCTION audit_log_append_only();
CREATE TRIGGER audit_log_no_truncate BEFORE TRUNCATE ON audit_log FOR EACH STATEMENT EXECUTE FUNCTION audit_log_append_only();
