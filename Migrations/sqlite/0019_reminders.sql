-- Scheduled work and reminders. A job may belong to something (`subject`, e.g.
-- `event:<id>`), so that what changes it — a moved start, a cancellation — moves or
-- drops its pending jobs in the same transaction. An event keeps its IANA time zone
-- (local times in texts and calendars, and later its series) and when to remind
-- (minutes before the start); a person keeps whether they want reminders and the
-- language TEXTs are written in.
ALTER TABLE jobs ADD COLUMN subject TEXT;
CREATE INDEX jobs_subject ON jobs (subject, kind) WHERE subject IS NOT NULL AND state = 'queued';
ALTER TABLE events ADD COLUMN time_zone TEXT NOT NULL DEFAULT 'UTC';
ALTER TABLE events ADD COLUMN reminders TEXT NOT NULL DEFAULT '[1440,120]';
ALTER TABLE events ADD COLUMN reminded_at REAL;
ALTER TABLE users ADD COLUMN reminders INTEGER NOT NULL DEFAULT 1;
ALTER TABLE users ADD COLUMN language TEXT NOT NULL DEFAULT 'en';
