-- An optional time after which nobody joins an event any more (409 answers_closed);
-- leaving stays possible.
ALTER TABLE events ADD COLUMN answer_deadline timestamptz;
