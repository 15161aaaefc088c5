-- Scheduled work and reminders. A job may belong to something (`subject`, e.g.
-- `event:<id>`), so that what changes it — a moved start, a cancellation — moves or
-- drops its pending jobs in the same transaction. An event keeps its IANA time zone
-- (local times in texts and calendars, and later its series) and when to remind
-- (minutes before the start); a person keeps whether they want reminders and the
-- language texts are written in.
ALTER TABLE jobs ADD COLUMN subject text;
CREATE INDEX jobs_subject ON jobs (subject, kind) WHERE subject IS NOT NULL AND state = 'queued';
ALTER TABLE events ADD COLUMN time_zone text NOT NULL DEFAULT 'UTC';
ALTER TABLE events ADD COLUMN reminders text NOT NULL DEFAULT '[1440,120]';
ALTER TABLE events ADD COLUMN reminded_at timestamptz;
ALTER TABLE users ADD COLUMN reminders boolean NOT NULL DEFAULT true;
ALTER TABLE users ADD COLUMN language text NOT NULL DEFAULT 'en';
