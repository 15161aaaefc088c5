-- Event chat: messages numbered per event, read markers, and who is connected where.
CREATE TABLE chat_messages (
    id uuid PRIMARY KEY,
    event_id uuid NOT NULL REFERENCES events(id) ON DELETE CASCADE,
    seq bigint NOT NULL,
    sender_id uuid NOT NULL REFERENCES users(id),
    client_id text NOT NULL,
    body text NOT NULL,
    created_at timestamptz NOT NULL,
    UNIQUE (event_id, seq),
    UNIQUE (event_id, sender_id, client_id)
);

CREATE TABLE chat_reads (
    event_id uuid NOT NULL REFERENCES events(id) ON DELETE CASCADE,
    user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    last_read_seq bigint NOT NULL,
    updated_at timestamptz NOT NULL,
    PRIMARY KEY (event_id, user_id)
);

CREATE UNLOGGED TABLE chat_presence (
    instance_id text NOT NULL,
    user_id uuid NOT NULL,
    event_id uuid NOT NULL,
    seen_at timestamptz NOT NULL,
    PRIMARY KEY (instance_id, user_id, event_id)
);
CREATE INDEX chat_presence_event ON chat_presence (event_id, user_id);
