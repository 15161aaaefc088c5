-- When an event's times last changed (NULL: never since it was made). A game counts
-- toward a record only if it was set at least an hour before its start: measured from
-- this, so moving a game made earlier to start now does not make it count.
ALTER TABLE events ADD COLUMN timed_at timestamptz;
