-- "This and following": a series split at a date ends with UNTIL the day before, and
-- names the series that carries its games on from that date.
ALTER TABLE series ADD COLUMN followed_by uuid REFERENCES series(id);
