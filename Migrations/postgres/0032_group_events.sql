-- Group events: an event or a series may belong to a group (its admins make them).
-- A members-only one is seen by the group's members alone, by every route: search
-- answers it inside the grid's walk, everything else asks the same rule.
ALTER TABLE events ADD COLUMN group_id uuid REFERENCES sport_groups(id);
ALTER TABLE events ADD COLUMN members_only boolean NOT NULL DEFAULT false;
CREATE INDEX events_group ON events (group_id, starts_at) WHERE group_id IS NOT NULL;
ALTER TABLE series ADD COLUMN members_only boolean NOT NULL DEFAULT false;
-- A member who mutes a group is not told of its new events.
ALTER TABLE group_members ADD COLUMN muted boolean NOT NULL DEFAULT false;
