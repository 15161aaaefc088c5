-- Rooms: an event's chat and a two-person conversation are both rooms, numbered,
-- read, resumed and fanned out by the same code. An event's room has the event's id.
-- `last_message_seq` numbers messages without gaps; `last_change_seq` numbers edits
-- and deletions, so a client resuming after a disconnect is sent the changes it missed.
CREATE TABLE rooms (
    id TEXT PRIMARY KEY,
    kind TEXT NOT NULL CHECK (kind IN ('event', 'conversation')),
    event_id TEXT UNIQUE REFERENCES events(id) ON DELETE CASCADE,
    last_message_seq INTEGER NOT NULL DEFAULT 0,
    last_change_seq INTEGER NOT NULL DEFAULT 0,
    last_activity_at REAL NOT NULL,
    created_at REAL NOT NULL
);
INSERT INTO rooms (id, kind, event_id, last_message_seq, last_change_seq, last_activity_at, created_at)
SELECT e.id, 'event', e.id, e.last_message_seq, 0,
       COALESCE((SELECT max(m.created_at) FROM chat_messages m WHERE m.event_id = e.id), e.created_at), e.created_at
FROM events e;
ALTER TABLE events DROP COLUMN last_message_seq;

-- A conversation's two people, in id order (one conversation per pair). Until they
-- share an event, the first message is a request: `requested` until the other
-- accepts (`open`) or declines (`declined`).
CREATE TABLE conversations (
    room_id TEXT PRIMARY KEY REFERENCES rooms(id) ON DELETE CASCADE,
    user_low TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    user_high TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    created_by TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    state TEXT NOT NULL CHECK (state IN ('new', 'requested', 'open', 'declined')),
    requested_by TEXT REFERENCES users(id) ON DELETE CASCADE,
    created_at REAL NOT NULL,
    UNIQUE (user_low, user_high),
    CHECK (user_low < user_high)
);
CREATE INDEX conversations_high ON conversations (user_high);

-- Messages belong to rooms (SQLite changes a reference by copying the table). Edits
-- and deletions take the room's next change number (`change_seq`); a deleted message
-- keeps its row and seq, without its body.
CREATE TABLE chat_messages_rooms (
    id TEXT PRIMARY KEY,
    room_id TEXT NOT NULL REFERENCES rooms(id) ON DELETE CASCADE,
    seq INTEGER NOT NULL,
    sender_id TEXT NOT NULL REFERENCES users(id),
    client_id TEXT NOT NULL,
    body TEXT NOT NULL,
    created_at REAL NOT NULL,
    attachment_id TEXT REFERENCES media(id) ON DELETE SET NULL,
    attachment_variants TEXT,
    attachment_width INTEGER,
    attachment_height INTEGER,
    reply_to_seq INTEGER,
    mentions TEXT,
    change_seq INTEGER NOT NULL DEFAULT 0,
    edited_at REAL,
    deleted_at REAL,
    UNIQUE (room_id, seq),
    UNIQUE (room_id, sender_id, client_id)
);
INSERT INTO chat_messages_rooms (id, room_id, seq, sender_id, client_id, body, created_at, attachment_id, attachment_variants, attachment_width, attachment_height)
SELECT id, event_id, seq, sender_id, client_id, body, created_at, attachment_id, attachment_variants, attachment_width, attachment_height FROM chat_messages;
DROP TABLE chat_messages;
ALTER TABLE chat_messages_rooms RENAME TO chat_messages;
CREATE INDEX chat_messages_attachment ON chat_messages (attachment_id) WHERE attachment_id IS NOT NULL;
CREATE INDEX chat_messages_changes ON chat_messages (room_id, change_seq) WHERE change_seq > 0;

-- Each member's read marker and mute, per room.
CREATE TABLE chat_reads_rooms (
    room_id TEXT NOT NULL REFERENCES rooms(id) ON DELETE CASCADE,
    user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    last_read_seq INTEGER NOT NULL,
    updated_at REAL NOT NULL,
    muted_until REAL,
    PRIMARY KEY (room_id, user_id)
);
INSERT INTO chat_reads_rooms (room_id, user_id, last_read_seq, updated_at) SELECT event_id, user_id, last_read_seq, updated_at FROM chat_reads;
DROP TABLE chat_reads;
ALTER TABLE chat_reads_rooms RENAME TO chat_reads;

ALTER TABLE chat_presence RENAME COLUMN event_id TO room_id;

-- Reactions: each person may put each of a small set of emoji on a message once.
CREATE TABLE chat_reactions (
    room_id TEXT NOT NULL,
    seq INTEGER NOT NULL,
    user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    emoji TEXT NOT NULL,
    created_at REAL NOT NULL,
    PRIMARY KEY (room_id, seq, user_id, emoji),
    FOREIGN KEY (room_id, seq) REFERENCES chat_messages(room_id, seq) ON DELETE CASCADE
);

-- A reported message's content as it was when reported, kept for the moderators
-- even if its author later deletes it.
ALTER TABLE reports ADD COLUMN content TEXT;
