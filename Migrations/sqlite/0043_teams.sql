-- Teams: how an event's organiser wants the people going split (2 to 4 teams,
-- balanced by level or at random, published by hand or by a job some minutes before
-- the start) and, once published, who is on which team; a player fixed to a team by
-- the organiser (a keeper) is never moved.
CREATE TABLE team_plans (
    event_id TEXT PRIMARY KEY REFERENCES events(id) ON DELETE CASCADE,
    team_count INTEGER NOT NULL CHECK (team_count BETWEEN 2 AND 4),
    method TEXT NOT NULL CHECK (method IN ('balanced', 'random')),
    publish_minutes INTEGER CHECK (publish_minutes BETWEEN 0 AND 10080),
    published_at REAL,
    updated_at REAL NOT NULL
);
CREATE TABLE team_players (
    event_id TEXT NOT NULL REFERENCES team_plans(event_id) ON DELETE CASCADE,
    user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    team INTEGER NOT NULL CHECK (team BETWEEN 0 AND 3),
    fixed INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (event_id, user_id)
);
CREATE INDEX team_players_user ON team_players (user_id);
