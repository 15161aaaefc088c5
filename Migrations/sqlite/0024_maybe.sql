-- "Maybe": an answer that takes no place (not in attendances, so no count, no waitlist
-- and no chat), reminded to decide before the game.
CREATE TABLE event_maybes (
    event_id TEXT NOT NULL REFERENCES events(id) ON DELETE CASCADE,
    user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    answered_at REAL NOT NULL,
    PRIMARY KEY (event_id, user_id)
);
CREATE INDEX event_maybes_user ON event_maybes (user_id);
