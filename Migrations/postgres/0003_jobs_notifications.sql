-- Invitations, the job outbox, the notification inbox and push devices.
CREATE TABLE invitations (
    id uuid PRIMARY KEY,
    event_id uuid NOT NULL REFERENCES events(id) ON DELETE CASCADE,
    inviter_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    invitee_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    status text NOT NULL CHECK (status IN ('pending', 'accepted', 'declined', 'revoked')),
    created_at timestamptz NOT NULL,
    responded_at timestamptz
);
CREATE UNIQUE INDEX invitations_one_pending ON invitations (event_id, invitee_id) WHERE status = 'pending';
CREATE INDEX invitations_invitee ON invitations (invitee_id, created_at);

CREATE TABLE jobs (
    id uuid PRIMARY KEY,
    kind text NOT NULL,
    payload text NOT NULL,
    dedupe_key text UNIQUE,
    state text NOT NULL CHECK (state IN ('queued', 'running', 'done', 'dead')),
    attempts integer NOT NULL DEFAULT 0,
    run_at timestamptz NOT NULL,
    lease_until timestamptz,
    locked_by text,
    last_error text,
    enqueued_at timestamptz NOT NULL,
    finished_at timestamptz
);
CREATE INDEX jobs_due ON jobs (state, run_at);
CREATE INDEX jobs_lease ON jobs (state, lease_until);

CREATE TABLE notifications (
    id uuid PRIMARY KEY,
    user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    kind text NOT NULL,
    data text NOT NULL,
    job_id uuid UNIQUE,
    collapse_key text,
    created_at timestamptz NOT NULL,
    read_at timestamptz
);
CREATE INDEX notifications_user ON notifications (user_id, created_at, id);
CREATE UNIQUE INDEX notifications_one_unread ON notifications (user_id, collapse_key) WHERE read_at IS NULL AND collapse_key IS NOT NULL;

CREATE TABLE devices (
    token text PRIMARY KEY,
    user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    platform text NOT NULL CHECK (platform IN ('ios', 'android', 'web')),
    created_at timestamptz NOT NULL
);
CREATE INDEX devices_user ON devices (user_id);
