-- foreign_keys: off
-- A group's chat is a room too (kind 'group', the group's id), with the same messages,
-- seq, edits, reactions, read markers and mute as an event's chat or a conversation;
-- its members take part. SQLite changes a CHECK by copying the table; messages, read
-- markers, presence and conversations refer to it, so this runs with foreign keys off
-- and every reference is checked before the commit.
CREATE TABLE rooms_with_groups (
    id TEXT PRIMARY KEY,
    kind TEXT NOT NULL CHECK (kind IN ('event', 'conversation', 'group')),
    event_id TEXT UNIQUE REFERENCES events(id) ON DELETE CASCADE,
    group_id TEXT UNIQUE REFERENCES sport_groups(id) ON DELETE CASCADE,
    last_message_seq INTEGER NOT NULL DEFAULT 0,
    last_change_seq INTEGER NOT NULL DEFAULT 0,
    last_activity_at REAL NOT NULL,
    created_at REAL NOT NULL
);
INSERT INTO rooms_with_groups (id, kind, event_id, group_id, last_message_seq, last_change_seq, last_activity_at, created_at)
SELECT id, kind, event_id, NULL, last_message_seq, last_change_seq, last_activity_at, created_at FROM rooms;
DROP TABLE rooms;
ALTER TABLE rooms_with_groups RENAME TO rooms;
-- Every live group has its room.
INSERT INTO rooms (id, kind, event_id, group_id, last_message_seq, last_change_seq, last_activity_at, created_at)
SELECT g.id, 'group', NULL, g.id, 0, 0, g.created_at, g.created_at FROM sport_groups g WHERE g.status = 'active';
