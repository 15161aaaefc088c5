-- A person's calendar feed: the URL holds a secret, of which only the SHA-256 is kept;
-- a new one replaces it and removing it ends the feed.
ALTER TABLE users ADD COLUMN calendar_feed text;
CREATE UNIQUE INDEX users_calendar_feed ON users (calendar_feed) WHERE calendar_feed IS NOT NULL;
