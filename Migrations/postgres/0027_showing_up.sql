-- Players who show up: per game and person, a check-in (near the place, around the
-- start), the organiser's mark (attended, no-show, excused: it overrides the check-in)
-- and a late cancellation (left within LATE_CANCEL_HOURS of the start). A person's
-- record is read from these rows for the games that are over; the row stays when they
-- leave. An event may ask for a record: at most record_max_no_shows no-shows in the
-- player's last record_last_games games.
CREATE TABLE attendance_records (
    event_id uuid NOT NULL REFERENCES events(id) ON DELETE CASCADE,
    user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    checked_in_at timestamptz,
    mark TEXT CHECK (mark IN ('attended', 'no_show', 'excused')),
    marked_at timestamptz,
    late_cancelled_at timestamptz,
    PRIMARY KEY (event_id, user_id)
);
CREATE INDEX attendance_records_user ON attendance_records (user_id);
ALTER TABLE events ADD COLUMN record_last_games integer;
ALTER TABLE events ADD COLUMN record_max_no_shows integer;
