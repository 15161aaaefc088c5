-- Results that move levels. A game may be competitive (fixed once someone has joined);
-- a player of a team enters the score, another team confirms or disputes it within a
-- day, after which an unconfirmed score stands. A confirmed or standing score of a
-- competitive game moves the levels of its players who have one, once: each level keeps
-- a rating in hundredths (0 to 700) and how many rated games made it, and every move is
-- an append-only row of level_changes.
ALTER TABLE events ADD COLUMN competitive boolean NOT NULL DEFAULT false;
ALTER TABLE user_levels ADD COLUMN rating integer CHECK (rating BETWEEN 0 AND 700);
ALTER TABLE user_levels ADD COLUMN rated_games integer NOT NULL DEFAULT 0;
CREATE TABLE game_results (
    event_id uuid PRIMARY KEY REFERENCES events(id) ON DELETE CASCADE,
    scores text NOT NULL,
    entered_by uuid REFERENCES users(id) ON DELETE SET NULL,
    entered_team integer NOT NULL,
    entered_at timestamptz NOT NULL,
    status text NOT NULL CHECK (status IN ('pending', 'confirmed', 'disputed', 'stood')),
    answered_by uuid REFERENCES users(id) ON DELETE SET NULL,
    answered_at timestamptz,
    applied_at timestamptz
);
CREATE TABLE level_changes (
    id uuid PRIMARY KEY,
    user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    sport_slug text NOT NULL REFERENCES sports(slug),
    event_id uuid REFERENCES events(id) ON DELETE SET NULL,
    rating_before integer NOT NULL,
    rating_after integer NOT NULL,
    at timestamptz NOT NULL,
    UNIQUE (user_id, event_id)
);
CREATE INDEX level_changes_user ON level_changes (user_id, sport_slug, at);
