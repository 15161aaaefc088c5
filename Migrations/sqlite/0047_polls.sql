-- Polls in the chat: a poll is a message (its body the question) with 2–10 options or
-- time slots. Votes are rows, one per person and option; a vote bumps the message's
-- change number, so counts travel on the room's change stream.
ALTER TABLE chat_messages ADD COLUMN poll INTEGER NOT NULL DEFAULT 0;
CREATE TABLE chat_polls (
    room_id TEXT NOT NULL,
    seq INTEGER NOT NULL,
    kind TEXT NOT NULL CHECK (kind IN ('choice', 'time')),
    multiple INTEGER NOT NULL,
    anonymous INTEGER NOT NULL,
    -- A sign-up list: each option taken by one person at most.
    one_per_option INTEGER NOT NULL,
    closes_at REAL NOT NULL,
    closed_at REAL,
    reminded_at REAL,
    -- What a closed time poll became; made_at claims the making, so two calls make one.
    made_at REAL,
    made_event_id TEXT REFERENCES events(id) ON DELETE SET NULL,
    made_series_id TEXT REFERENCES series(id) ON DELETE SET NULL,
    PRIMARY KEY (room_id, seq),
    FOREIGN KEY (room_id, seq) REFERENCES chat_messages(room_id, seq) ON DELETE CASCADE
);
CREATE TABLE chat_poll_options (
    room_id TEXT NOT NULL,
    seq INTEGER NOT NULL,
    position INTEGER NOT NULL,
    label TEXT NOT NULL,
    starts_at REAL,
    ends_at REAL,
    PRIMARY KEY (room_id, seq, position),
    FOREIGN KEY (room_id, seq) REFERENCES chat_polls(room_id, seq) ON DELETE CASCADE
);
CREATE TABLE chat_poll_votes (
    room_id TEXT NOT NULL,
    seq INTEGER NOT NULL,
    position INTEGER NOT NULL,
    user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    created_at REAL NOT NULL,
    PRIMARY KEY (room_id, seq, position, user_id),
    FOREIGN KEY (room_id, seq) REFERENCES chat_polls(room_id, seq) ON DELETE CASCADE
);
CREATE INDEX chat_poll_votes_user ON chat_poll_votes (user_id);
