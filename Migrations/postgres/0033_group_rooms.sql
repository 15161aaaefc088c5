-- A group's chat is a room too (kind 'group', the group's id), with the same messages,
-- seq, edits, reactions, read markers and mute as an event's chat or a conversation;
-- its members take part.
ALTER TABLE rooms DROP CONSTRAINT rooms_kind_check;
ALTER TABLE rooms ADD CONSTRAINT rooms_kind_check CHECK (kind IN ('event', 'conversation', 'group'));
ALTER TABLE rooms ADD COLUMN group_id uuid UNIQUE REFERENCES sport_groups(id) ON DELETE CASCADE;
-- Every live group has its room.
INSERT INTO rooms (id, kind, event_id, group_id, last_message_seq, last_change_seq, last_activity_at, created_at)
SELECT g.id, 'group', NULL, g.id, 0, 0, g.created_at, g.created_at FROM sport_groups g WHERE g.status = 'active';
