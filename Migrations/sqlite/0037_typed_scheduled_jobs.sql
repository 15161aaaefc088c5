-- Timed work is one typed job (ScheduledJob): its payload is JSON that names its kind
-- and carries its fields. Jobs queued before in the old payloads are rewritten: a
-- series' id; a decision's "<event id> <start in ms>"; an offer's "<event id> <user id>
-- <expiry in ms>" (ids lowercased, 36 characters); a reminder's JSON without its kind.
UPDATE jobs SET payload = '{"kind":"series_extend","series_id":"' || payload || '"}'
WHERE kind = 'series_extend' AND payload NOT LIKE '{%';
UPDATE jobs SET payload = '{"event_id":"' || substr(payload, 1, 36) || '","kind":"game_decision","starts_at":' || substr(payload, 38) || '}'
WHERE kind = 'game_decision' AND payload NOT LIKE '{%';
UPDATE jobs SET payload = '{"event_id":"' || substr(payload, 1, 36) || '","expires_at":' || substr(payload, 75)
    || ',"kind":"waitlist_offer_expiry","user_id":"' || substr(payload, 38, 36) || '"}'
WHERE kind = 'waitlist_offer_expiry' AND payload NOT LIKE '{%';
UPDATE jobs SET payload = '{"kind":"reminder_due",' || substr(payload, 2)
WHERE kind = 'reminder_due' AND payload NOT LIKE '%"kind"%';
