-- Waitlist offers: close to the start a freed place is offered to the first in line for
-- a while (offer_expires_at on their waitlisted row) instead of given at once; an offered
-- place is held (offered_count) until it is taken, declined or the offer expires.
ALTER TABLE attendances ADD COLUMN offer_expires_at timestamptz;
ALTER TABLE events ADD COLUMN offered_count integer NOT NULL DEFAULT 0;
