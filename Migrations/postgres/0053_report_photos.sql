-- A photo can be reported too: staff take it down from every variant and every place it shows.
ALTER TABLE reports DROP CONSTRAINT reports_target_type_check;
ALTER TABLE reports ADD CONSTRAINT reports_target_type_check CHECK (target_type IN ('user', 'event', 'message', 'group', 'photo'));
-- Where an upload shows is found from the upload (a report, a deletion of uploads).
CREATE INDEX users_photo ON users (photo_id) WHERE photo_id IS NOT NULL;
CREATE INDEX events_cover ON events (cover_id) WHERE cover_id IS NOT NULL;
CREATE INDEX sport_groups_cover ON sport_groups (cover_id) WHERE cover_id IS NOT NULL;
