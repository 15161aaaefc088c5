-- The weekly game: a series makes real events ("occurrences") a rolling window ahead,
-- one per local date of its rule, at its local time in its IANA time zone. group_id
-- is for the groups to come (a series will belong to a group); nothing sets it yet.
CREATE TABLE series (
    id TEXT PRIMARY KEY,
    organiser_id TEXT NOT NULL REFERENCES users(id),
    group_id TEXT,
    title TEXT NOT NULL,
    sport_slug TEXT NOT NULL REFERENCES sports(slug),
    description TEXT NOT NULL DEFAULT '',
    address TEXT,
    lat REAL NOT NULL,
    lon REAL NOT NULL,
    capacity INTEGER,
    time_zone TEXT NOT NULL,
    reminders TEXT NOT NULL,
    start_minutes INTEGER NOT NULL,
    duration_minutes INTEGER NOT NULL,
    first_date TEXT NOT NULL,
    rule TEXT NOT NULL,
    status TEXT NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'ended')),
    made_through TEXT NOT NULL,
    version INTEGER NOT NULL DEFAULT 1,
    created_at REAL NOT NULL,
    updated_at REAL NOT NULL
);
CREATE INDEX series_organiser ON series (organiser_id);
ALTER TABLE events ADD COLUMN series_id TEXT REFERENCES series(id);
ALTER TABLE events ADD COLUMN occurrence_date TEXT;
-- One event per series and date, whichever instance makes it.
CREATE UNIQUE INDEX events_occurrence ON events (series_id, occurrence_date) WHERE series_id IS NOT NULL;
-- Regulars: joined the series, so every new occurrence has them (in this order).
CREATE TABLE series_regulars (
    series_id TEXT NOT NULL REFERENCES series(id) ON DELETE CASCADE,
    user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    joined_at REAL NOT NULL,
    PRIMARY KEY (series_id, user_id)
);
-- Dates the organiser skipped, and dates a regular is not coming to.
CREATE TABLE series_skips (
    series_id TEXT NOT NULL REFERENCES series(id) ON DELETE CASCADE,
    occurrence_date TEXT NOT NULL,
    PRIMARY KEY (series_id, occurrence_date)
);
CREATE TABLE series_opt_outs (
    series_id TEXT NOT NULL REFERENCES series(id) ON DELETE CASCADE,
    user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    occurrence_date TEXT NOT NULL,
    PRIMARY KEY (series_id, user_id, occurrence_date)
);
