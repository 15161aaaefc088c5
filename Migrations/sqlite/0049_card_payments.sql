-- Card payments through Stripe (optional): an organiser's connected account, the Checkout
-- Sessions made for what a player owes, refunds asked of Stripe, and every webhook event
-- applied (by its id, so a repeated delivery changes nothing). The ledger gets a card
-- payment or refund only from a signed webhook.
CREATE TABLE payout_accounts (
    user_id TEXT PRIMARY KEY REFERENCES users(id),
    stripe_account_id TEXT NOT NULL UNIQUE,
    charges_enabled INTEGER NOT NULL DEFAULT 0,
    created_at REAL NOT NULL,
    updated_at REAL NOT NULL
);
CREATE TABLE card_payments (
    session_id TEXT PRIMARY KEY,
    event_id TEXT NOT NULL REFERENCES events(id),
    user_id TEXT NOT NULL REFERENCES users(id),
    stripe_account_id TEXT NOT NULL,
    amount INTEGER NOT NULL,
    currency TEXT NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('open', 'paid')),
    payment_intent_id TEXT UNIQUE,
    created_at REAL NOT NULL
);
CREATE INDEX card_payments_event ON card_payments (event_id, user_id);
CREATE TABLE card_refunds (
    refund_id TEXT PRIMARY KEY,
    event_id TEXT NOT NULL REFERENCES events(id),
    user_id TEXT NOT NULL REFERENCES users(id),
    payment_intent_id TEXT NOT NULL,
    amount INTEGER NOT NULL,
    recorded_by TEXT REFERENCES users(id),
    created_at REAL NOT NULL
);
CREATE TABLE stripe_events (
    id TEXT PRIMARY KEY,
    type TEXT NOT NULL,
    received_at REAL NOT NULL
);
