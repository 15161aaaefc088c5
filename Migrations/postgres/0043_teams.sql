-- Teams: how an event's organiser wants the people going split (2 to 4 teams,
-- balanced by level or at random, published by hand or by a job some minutes before
-- the start) and, once published, who is on which team; a player fixed to a team by
-- the organiser (a keeper) is never moved.
CREATE TABLE team_plans (
    event_id uuid PRIMARY KEY REFERENCES events(id) ON DELETE CASCADE,
    team_count integer NOT NULL CHECK (team_count BETWEEN 2 AND 4),
    method text NOT NULL CHECK (method IN ('balanced', 'random')),
    publish_minutes integer CHECK (publish_minutes BETWEEN 0 AND 10080),
    published_at timestamptz,
    updated_at timestamptz NOT NULL
);
CREATE TABLE team_players (
    event_id uuid NOT NULL REFERENCES team_plans(event_id) ON DELETE CASCADE,
    user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    team integer NOT NULL CHECK (team BETWEEN 0 AND 3),
    fixed boolean NOT NULL DEFAULT false,
    PRIMARY KEY (event_id, user_id)
);
CREATE INDEX team_players_user ON team_players (user_id);
