-- Polls in the chat: a poll is a message (its body the question) with 2–10 options or
-- time slots. Votes are rows, one per person and option; a vote bumps the message's
-- change number, so counts travel on the room's change stream.
ALTER TABLE chat_messages ADD COLUMN poll boolean NOT NULL DEFAULT false;
CREATE TABLE chat_polls (
    room_id uuid NOT NULL,
    seq bigint NOT NULL,
    kind text NOT NULL CHECK (kind IN ('choice', 'time')),
    multiple boolean NOT NULL,
    anonymous boolean NOT NULL,
    -- A sign-up list: each option taken by one person at most.
    one_per_option boolean NOT NULL,
    closes_at timestamptz NOT NULL,
    closed_at timestamptz,
    reminded_at timestamptz,
    -- What a closed time poll became; made_at claims the making, so two calls make one.
    made_at timestamptz,
    made_event_id uuid REFERENCES events(id) ON DELETE SET NULL,
    made_series_id uuid REFERENCES series(id) ON DELETE SET NULL,
    PRIMARY KEY (room_id, seq),
    FOREIGN KEY (room_id, seq) REFERENCES chat_messages(room_id, seq) ON DELETE CASCADE
);
CREATE TABLE chat_poll_options (
    room_id uuid NOT NULL,
    seq bigint NOT NULL,
    position integer NOT NULL,
    label text NOT NULL,
    starts_at timestamptz,
    ends_at timestamptz,
    PRIMARY KEY (room_id, seq, position),
    FOREIGN KEY (room_id, seq) REFERENCES chat_polls(room_id, seq) ON DELETE CASCADE
);
CREATE TABLE chat_poll_votes (
    room_id uuid NOT NULL,
    seq bigint NOT NULL,
    position integer NOT NULL,
    user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    created_at timestamptz NOT NULL,
    PRIMARY KEY (room_id, seq, position, user_id),
    FOREIGN KEY (room_id, seq) REFERENCES chat_polls(room_id, seq) ON DELETE CASCADE
);
CREATE INDEX chat_poll_votes_user ON chat_poll_votes (user_id);
