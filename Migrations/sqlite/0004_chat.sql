-- Event chat: messages numbered per event, read markers, and who is connected where.
CREATE TABLE chat_messages (
    id TEXT PRIMARY KEY,
    event_id TEXT NOT NULL REFERENCES events(id) ON DELETE CASCADE,
    seq INTEGER NOT NULL,
    sender_id TEXT NOT NULL REFERENCES users(id),
    client_id TEXT NOT NULL,
    body TEXT NOT NULL,
    created_at REAL NOT NULL,
    UNIQUE (event_id, seq),
    UNIQUE (event_id, sender_id, client_id)
);

CREATE TABLE chat_reads (
    event_id TEXT NOT NULL REFERENCES events(id) ON DELETE CASCADE,
    user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    last_read_seq INTEGER NOT NULL,
    updated_at REAL NOT NULL,
    PRIMARY KEY (event_id, user_id)
);

CREATE TABLE chat_presence (
    instance_id TEXT NOT NULL,
    user_id TEXT NOT NULL,
    event_id TEXT NOT NULL,
    seen_at REAL NOT NULL,
    PRIMARY KEY (instance_id, user_id, event_id)
);
CREATE INDEX chat_presence_event ON chat_presence (event_id, user_id);
