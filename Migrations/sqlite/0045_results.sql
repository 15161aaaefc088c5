-- Results that move levels. A game may be competitive (fixed once someone has joined);
-- a player of a team enters the score, another team confirms or disputes it within a
-- day, after which an unconfirmed score stands. A confirmed or standing score of a
-- competitive game moves the levels of its players who have one, once: each level keeps
-- a rating in hundredths (0 to 700) and how many rated games made it, and every move is
-- an append-only row of level_changes.
ALTER TABLE events ADD COLUMN competitive INTEGER NOT NULL DEFAULT 0;
ALTER TABLE user_levels ADD COLUMN rating INTEGER CHECK (rating BETWEEN 0 AND 700);
ALTER TABLE user_levels ADD COLUMN rated_games INTEGER NOT NULL DEFAULT 0;
CREATE TABLE game_results (
    event_id TEXT PRIMARY KEY REFERENCES events(id) ON DELETE CASCADE,
    scores TEXT NOT NULL,
    entered_by TEXT REFERENCES users(id) ON DELETE SET NULL,
    entered_team INTEGER NOT NULL,
    entered_at REAL NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('pending', 'confirmed', 'disputed', 'stood')),
    answered_by TEXT REFERENCES users(id) ON DELETE SET NULL,
    answered_at REAL,
    applied_at REAL
);
CREATE TABLE level_changes (
    id TEXT PRIMARY KEY,
    user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    sport_slug TEXT NOT NULL REFERENCES sports(slug),
    event_id TEXT REFERENCES events(id) ON DELETE SET NULL,
    rating_before INTEGER NOT NULL,
    rating_after INTEGER NOT NULL,
    at REAL NOT NULL,
    UNIQUE (user_id, event_id)
);
CREATE INDEX level_changes_user ON level_changes (user_id, sport_slug, at);
