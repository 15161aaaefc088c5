-- Events and attendance.
CREATE TABLE events (
    id uuid PRIMARY KEY,
    organiser_id uuid NOT NULL REFERENCES users(id),
    sport_slug text NOT NULL REFERENCES sports(slug),
    title text NOT NULL,
    description text NOT NULL DEFAULT '',
    address text,
    image_url text,
    lat double precision NOT NULL,
    lon double precision NOT NULL,
    starts_at timestamptz NOT NULL,
    ends_at timestamptz NOT NULL,
    capacity integer,
    status text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'cancelled')),
    going_count integer NOT NULL DEFAULT 0,
    waitlist_count integer NOT NULL DEFAULT 0,
    waitlist_counter integer NOT NULL DEFAULT 0,
    last_message_seq bigint NOT NULL DEFAULT 0,
    version bigint NOT NULL DEFAULT 1,
    created_at timestamptz NOT NULL,
    updated_at timestamptz NOT NULL
);
CREATE INDEX events_live ON events (status, ends_at);
CREATE INDEX events_organiser ON events (organiser_id, starts_at);
CREATE INDEX events_updated ON events (updated_at);

CREATE TABLE attendances (
    event_id uuid NOT NULL REFERENCES events(id) ON DELETE CASCADE,
    user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    status text NOT NULL CHECK (status IN ('going', 'waitlisted')),
    queue_number integer,
    joined_at timestamptz NOT NULL,
    PRIMARY KEY (event_id, user_id)
);
CREATE INDEX attendances_user ON attendances (user_id);
CREATE INDEX attendances_waitlist ON attendances (event_id, status, queue_number);
