-- Trust under strangers (issue 13).
-- A device registration belongs to the session that made it: ending the session
-- stops its pushes. Registrations made before this migration have no session.
ALTER TABLE devices ADD COLUMN session_id uuid REFERENCES access_tokens(id) ON DELETE CASCADE;
CREATE INDEX devices_session ON devices (session_id);

-- A login attempt is reserved (one row per subject) before its password is
-- hashed, and the reservation removed when the password was right: each row is
-- one attempt, named so that it can be removed.
-- Indexed for the release of one attempt and the purge of old ones.
ALTER TABLE login_failures ADD COLUMN attempt uuid;

CREATE INDEX login_failures_attempt ON login_failures (attempt);
CREATE INDEX login_failures_age ON login_failures (failed_at);

-- Deleted accounts keep their row (chat messages stay "from a deleted user");
-- everything personal in it is erased.
ALTER TABLE users ADD COLUMN deleted_at timestamptz;

-- Invitations an inviter sent in a day, counted for the daily limit.
CREATE INDEX invitations_inviter_created ON invitations (inviter_id, created_at);

-- An invitation to someone who blocked the inviter is kept, hidden: the inviter sees
-- it as any other (the same one again on a second try), the invitee never does.
ALTER TABLE invitations ADD COLUMN hidden boolean NOT NULL DEFAULT false;
