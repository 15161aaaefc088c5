-- Every column the event index warms from, in the index itself: the warm-up reads
-- the live events as one range of this index (an index-only scan once the table is
-- vacuumed), without a heap lookup per event. The key columns are those of 0006, so
-- every query that used it still does.
DROP INDEX events_live;
CREATE INDEX events_live ON events (status, ends_at, id) INCLUDE (sport_slug, lat, lon, starts_at, version);
