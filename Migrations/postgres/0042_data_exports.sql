-- Each person's data on request: one archive per export, kept until it expires.
CREATE TABLE data_exports (
    id uuid PRIMARY KEY,
    user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    requested_by uuid,
    status text NOT NULL CHECK (status IN ('pending', 'ready', 'expired')),
    requested_at timestamptz NOT NULL,
    ready_at timestamptz,
    expires_at timestamptz,
    size bigint,
    archive bytea
);
CREATE INDEX data_exports_user ON data_exports (user_id, requested_at);
