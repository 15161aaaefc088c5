-- A card refund is kept before Stripe is asked: our own id (the request's idempotency key)
-- and its status, pending until Stripe's webhook says it went through (or failed); Stripe's
-- id once it answered. Pending refunds count against what may still be given back.
CREATE TABLE card_refunds_new (
    id TEXT PRIMARY KEY,
    refund_id TEXT UNIQUE,
    event_id TEXT NOT NULL REFERENCES events(id),
    user_id TEXT NOT NULL REFERENCES users(id),
    payment_intent_id TEXT NOT NULL,
    amount INTEGER NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('pending', 'succeeded', 'failed')),
    recorded_by TEXT REFERENCES users(id),
    created_at REAL NOT NULL
);
-- Refunds kept before this were made by Stripe already (their webhook enters them in the ledger).
INSERT INTO card_refunds_new (id, refund_id, event_id, user_id, payment_intent_id, amount, status, recorded_by, created_at)
SELECT upper(hex(randomblob(4)) || '-' || hex(randomblob(2)) || '-4' || substr(hex(randomblob(2)), 2) || '-'
    || substr('89AB', 1 + (abs(random()) % 4), 1) || substr(hex(randomblob(2)), 2) || '-' || hex(randomblob(6))),
    refund_id, event_id, user_id, payment_intent_id, amount, 'succeeded', recorded_by, created_at FROM card_refunds;
DROP TABLE card_refunds;
ALTER TABLE card_refunds_new RENAME TO card_refunds;
CREATE INDEX card_refunds_intent ON card_refunds (payment_intent_id);
