-- Rooms: an event's chat and a two-person conversation are both rooms, numbered,
-- read, resumed and fanned out by the same code. An event's room has the event's id.
-- `last_message_seq` numbers messages without gaps; `last_change_seq` numbers edits
-- and deletions, so a client resuming after a disconnect is sent the changes it missed.
CREATE TABLE rooms (
    id uuid PRIMARY KEY,
    kind text NOT NULL CHECK (kind IN ('event', 'conversation')),
    event_id uuid UNIQUE REFERENCES events(id) ON DELETE CASCADE,
    last_message_seq bigint NOT NULL DEFAULT 0,
    last_change_seq bigint NOT NULL DEFAULT 0,
    last_activity_at timestamptz NOT NULL,
    created_at timestamptz NOT NULL
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
    room_id uuid PRIMARY KEY REFERENCES rooms(id) ON DELETE CASCADE,
    user_low uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    user_high uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    created_by uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    state text NOT NULL CHECK (state IN ('new', 'requested', 'open', 'declined')),
    requested_by uuid REFERENCES users(id) ON DELETE CASCADE,
    created_at timestamptz NOT NULL,
    UNIQUE (user_low, user_high),
    CHECK (user_low < user_high)
);
CREATE INDEX conversations_high ON conversations (user_high);

-- Messages belong to rooms. Edits and deletions take the room's next change number
-- (`change_seq`); a deleted message keeps its row and seq, without its body.
ALTER TABLE chat_messages RENAME COLUMN event_id TO room_id;
ALTER TABLE chat_messages DROP CONSTRAINT chat_messages_event_id_fkey;
ALTER TABLE chat_messages ADD CONSTRAINT chat_messages_room_id_fkey FOREIGN KEY (room_id) REFERENCES rooms(id) ON DELETE CASCADE;
ALTER TABLE chat_messages ADD COLUMN reply_to_seq bigint;
ALTER TABLE chat_messages ADD COLUMN mentions text;
ALTER TABLE chat_messages ADD COLUMN change_seq bigint NOT NULL DEFAULT 0;
ALTER TABLE chat_messages ADD COLUMN edited_at timestamptz;
ALTER TABLE chat_messages ADD COLUMN deleted_at timestamptz;
CREATE INDEX chat_messages_changes ON chat_messages (room_id, change_seq) WHERE change_seq > 0;

-- Each member's read marker and mute, per room.
ALTER TABLE chat_reads RENAME COLUMN event_id TO room_id;
ALTER TABLE chat_reads DROP CONSTRAINT chat_reads_event_id_fkey;
ALTER TABLE chat_reads ADD CONSTRAINT chat_reads_room_id_fkey FOREIGN KEY (room_id) REFERENCES rooms(id) ON DELETE CASCADE;
ALTER TABLE chat_reads ADD COLUMN muted_until timestamptz;

ALTER TABLE chat_presence RENAME COLUMN event_id TO room_id;

-- Reactions: each person may put each of a small set of emoji on a message once.
CREATE TABLE chat_reactions (
    room_id uuid NOT NULL,
    seq bigint NOT NULL,
    user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    emoji text NOT NULL,
    created_at timestamptz NOT NULL,
    PRIMARY KEY (room_id, seq, user_id, emoji),
    FOREIGN KEY (room_id, seq) REFERENCES chat_messages(room_id, seq) ON DELETE CASCADE
);

-- A reported message's content as it was when reported, kept for the moderators
-- even if its author later deletes it.
ALTER TABLE reports ADD COLUMN content text;
