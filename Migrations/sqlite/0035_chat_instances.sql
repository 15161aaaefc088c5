-- Each instance's heartbeat, in one row: a socket's presence counts while its
-- instance's row is fresh. Refreshing every presence row every half minute cost an
-- UPDATE of all of them, in the single writer.
-- Instances of the release before keep presence by each row's own time (and sweep
-- rows by it): upgrade every instance at once.
CREATE TABLE chat_instances (
    instance_id TEXT PRIMARY KEY,
    seen_at REAL NOT NULL
);
INSERT INTO chat_instances (instance_id, seen_at)
SELECT instance_id, max(seen_at) FROM chat_presence GROUP BY instance_id;
