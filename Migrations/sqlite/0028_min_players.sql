-- Minimum players: a game with min_players is "on" (game_on_at, everyone going told once)
-- the first time that many participants are going; not by decide_minutes before the
-- start, a scheduled job cancels it.
ALTER TABLE events ADD COLUMN min_players INTEGER;
ALTER TABLE events ADD COLUMN decide_minutes INTEGER NOT NULL DEFAULT 120;
ALTER TABLE events ADD COLUMN game_on_at REAL;
