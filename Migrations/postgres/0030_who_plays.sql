-- Who a game is for: a player's skill level per sport (0 to 7 in half steps, kept as
-- whole half steps 0..14) and a self-declared, optional gender; an event's level range
-- (in the same half steps) and audience.
CREATE TABLE user_levels (
    user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    sport_slug TEXT NOT NULL REFERENCES sports(slug),
    level_half integer NOT NULL CHECK (level_half BETWEEN 0 AND 14),
    PRIMARY KEY (user_id, sport_slug)
);
ALTER TABLE users ADD COLUMN gender TEXT CHECK (gender IN ('woman', 'man'));
ALTER TABLE events ADD COLUMN level_min_half integer;
ALTER TABLE events ADD COLUMN level_max_half integer;
ALTER TABLE events ADD COLUMN audience TEXT NOT NULL DEFAULT 'anyone' CHECK (audience IN ('anyone', 'women', 'men', 'mixed'));
