-- Invitations, the job outbox, the notification inbox and push devices.
CREATE TABLE invitations (
    id TEXT PRIMARY KEY,
    event_id TEXT NOT NULL REFERENCES events(id) ON DELETE CASCADE,
    inviter_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    invitee_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    status TEXT NOT NULL CHECK (status IN ('pending', 'accepted', 'declined', 'revoked')),
    created_at REAL NOT NULL,
    responded_at REAL
);
CREATE UNIQUE INDEX invitations_one_pending ON invitations (event_id, invitee_id) WHERE status = 'pending';
CREATE INDEX invitations_invitee ON invitations (invitee_id, created_at);

CREATE TABLE jobs (
    id TEXT PRIMARY KEY,
    kind TEXT NOT NULL,
    payload TEXT NOT NULL,
    dedupe_key TEXT UNIQUE,
    state TEXT NOT NULL CHECK (state IN ('queued', 'running', 'done', 'dead')),
    attempts INTEGER NOT NULL DEFAULT 0,
    run_at REAL NOT NULL,
    lease_until REAL,
    locked_by TEXT,
    last_error TEXT,
    enqueued_at REAL NOT NULL,
    finished_at REAL
);
CREATE INDEX jobs_due ON jobs (state, run_at);
CREATE INDEX jobs_lease ON jobs (state, lease_until);

CREATE TABLE notifications (
    id TEXT PRIMARY KEY,
    user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    kind TEXT NOT NULL,
    data TEXT NOT NULL,
    job_id TEXT UNIQUE,
    collapse_key TEXT,
    created_at REAL NOT NULL,
    read_at REAL
);
CREATE INDEX notifications_user ON notifications (user_id, created_at, id);
CREATE UNIQUE INDEX notifications_one_unread ON notifications (user_id, collapse_key) WHERE read_at IS NULL AND collapse_key IS NOT NULL;

CREATE TABLE devices (
    token TEXT PRIMARY KEY,
    user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    platform TEXT NOT NULL CHECK (platform IN ('ios', 'android', 'web')),
    created_at REAL NOT NULL
);
CREATE INDEX devices_user ON devices (user_id);
