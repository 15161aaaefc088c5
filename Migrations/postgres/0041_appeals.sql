-- Appeals: the person a staff action reached may appeal it once; another member of
-- staff upholds or reverses it.
CREATE TABLE appeals (
    id uuid PRIMARY KEY,
    user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    action_id uuid NOT NULL UNIQUE,
    statement text NOT NULL,
    status text NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'upheld', 'reversed')),
    created_at timestamptz NOT NULL,
    decided_by uuid,
    decided_at timestamptz
);
CREATE INDEX appeals_open ON appeals (status, created_at);
