-- A deleted account's weekly series end: no game is made in the name of someone who
-- is gone (deleting an account ends them from now on; this ends those left before).
UPDATE series SET status = 'ended', version = version + 1
WHERE status = 'active' AND organiser_id IN (SELECT id FROM users WHERE deleted_at IS NOT NULL);
