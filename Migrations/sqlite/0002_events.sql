-- Events and attendance.
CREATE TABLE events (
    id TEXT PRIMARY KEY,
    organiser_id TEXT NOT NULL REFERENCES users(id),
    sport_slug TEXT NOT NULL REFERENCES sports(slug),
    title TEXT NOT NULL,
    description TEXT NOT NULL DEFAULT '',
    address TEXT,
    image_url TEXT,
    lat REAL NOT NULL,
    lon REAL NOT NULL,
    starts_at REAL NOT NULL,
    ends_at REAL NOT NULL,
    capacity INTEGER,
    status TEXT NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'cancelled')),
    going_count INTEGER NOT NULL DEFAULT 0,
    waitlist_count INTEGER NOT NULL DEFAULT 0,
    waitlist_counter INTEGER NOT NULL DEFAULT 0,
    last_message_seq INTEGER NOT NULL DEFAULT 0,
    version INTEGER NOT NULL DEFAULT 1,
    created_at REAL NOT NULL,
    updated_at REAL NOT NULL
);
CREATE INDEX events_live ON events (status, ends_at);
CREATE INDEX events_organiser ON events (organiser_id, starts_at);
CREATE INDEX events_updated ON events (updated_at);

CREATE TABLE attendances (
    event_id TEXT NOT NULL REFERENCES events(id) ON DELETE CASCADE,
    user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    status TEXT NOT NULL CHECK (status IN ('going', 'waitlisted')),
    queue_number INTEGER,
    joined_at REAL NOT NULL,
    PRIMARY KEY (event_id, user_id)
);
CREATE INDEX attendances_user ON attendances (user_id);
CREATE INDEX attendances_waitlist ON attendances (event_id, status, queue_number);
