-- People an event's organiser removed and banned: they cannot join it again (by
-- themselves or through an invitation) until the organiser lifts the ban.
CREATE TABLE event_bans (
    event_id TEXT NOT NULL REFERENCES events(id) ON DELETE CASCADE,
    user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    banned_at REAL NOT NULL,
    PRIMARY KEY (event_id, user_id)
);
CREATE INDEX event_bans_user ON event_bans (user_id);
