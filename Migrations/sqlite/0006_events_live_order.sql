-- Live events in (ends_at, id) order, so that warming the event index pages through
-- them by keyset on the index alone. With (status, ends_at) only, SQLite answered
-- each page of an id-ordered scan by sorting every live event: at a million events
-- a page took longer than the query timeout.
DROP INDEX events_live;
CREATE INDEX events_live ON events (status, ends_at, id);
