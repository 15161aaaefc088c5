-- A group's cover photo: an upload of an admin's made with use=cover, as an event's.
ALTER TABLE sport_groups ADD COLUMN cover_id uuid REFERENCES media(id) ON DELETE SET NULL;
ALTER TABLE sport_groups ADD COLUMN cover_variants text;
