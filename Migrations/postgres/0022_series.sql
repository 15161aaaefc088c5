-- The weekly game: a series makes real events ("occurrences") a rolling window ahead,
-- one per local date of its rule, at its local time in its IANA time zone. group_id
-- is for the groups to come (a series will belong to a group); nothing sets it yet.
CREATE TABLE series (
    id uuid PRIMARY KEY,
    organiser_id uuid NOT NULL REFERENCES users(id),
    group_id uuid,
    title text NOT NULL,
    sport_slug text NOT NULL REFERENCES sports(slug),
    description text NOT NULL DEFAULT '',
    address text,
    lat double precision NOT NULL,
    lon double precision NOT NULL,
    capacity integer,
    time_zone text NOT NULL,
    reminders text NOT NULL,
    start_minutes integer NOT NULL,
    duration_minutes integer NOT NULL,
    first_date text NOT NULL,
    rule text NOT NULL,
    status text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'ended')),
    made_through text NOT NULL,
    version bigint NOT NULL DEFAULT 1,
    created_at timestamptz NOT NULL,
    updated_at timestamptz NOT NULL
);
CREATE INDEX series_organiser ON series (organiser_id);
ALTER TABLE events ADD COLUMN series_id uuid REFERENCES series(id);
ALTER TABLE events ADD COLUMN occurrence_date text;
-- One event per series and date, whichever instance makes it.
CREATE UNIQUE INDEX events_occurrence ON events (series_id, occurrence_date) WHERE series_id IS NOT NULL;
-- Regulars: joined the series, so every new occurrence has them (in this order).
CREATE TABLE series_regulars (
    series_id uuid NOT NULL REFERENCES series(id) ON DELETE CASCADE,
    user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    joined_at timestamptz NOT NULL,
    PRIMARY KEY (series_id, user_id)
);
-- Dates the organiser skipped, and dates a regular is not coming to.
CREATE TABLE series_skips (
    series_id uuid NOT NULL REFERENCES series(id) ON DELETE CASCADE,
    occurrence_date text NOT NULL,
    PRIMARY KEY (series_id, occurrence_date)
);
CREATE TABLE series_opt_outs (
    series_id uuid NOT NULL REFERENCES series(id) ON DELETE CASCADE,
    user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    occurrence_date text NOT NULL,
    PRIMARY KEY (series_id, user_id, occurrence_date)
);
