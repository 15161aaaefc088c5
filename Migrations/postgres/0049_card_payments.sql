-- Card payments through Stripe (optional): an organiser's connected account, the Checkout
-- Sessions made for what a player owes, refunds asked of Stripe, and every webhook event
-- applied (by its id, so a repeated delivery changes nothing). The ledger gets a card
-- payment or refund only from a signed webhook.
CREATE TABLE payout_accounts (
    user_id uuid PRIMARY KEY REFERENCES users(id),
    stripe_account_id text NOT NULL UNIQUE,
    charges_enabled boolean NOT NULL DEFAULT FALSE,
    created_at timestamptz NOT NULL,
    updated_at timestamptz NOT NULL
);
CREATE TABLE card_payments (
    session_id text PRIMARY KEY,
    event_id uuid NOT NULL REFERENCES events(id),
    user_id uuid NOT NULL REFERENCES users(id),
    stripe_account_id text NOT NULL,
    amount bigint NOT NULL,
    currency text NOT NULL,
    status text NOT NULL CHECK (status IN ('open', 'paid')),
    payment_intent_id text UNIQUE,
    created_at timestamptz NOT NULL
);
CREATE INDEX card_payments_event ON card_payments (event_id, user_id);
CREATE TABLE card_refunds (
    refund_id text PRIMARY KEY,
    event_id uuid NOT NULL REFERENCES events(id),
    user_id uuid NOT NULL REFERENCES users(id),
    payment_intent_id text NOT NULL,
    amount bigint NOT NULL,
    recorded_by uuid REFERENCES users(id),
    created_at timestamptz NOT NULL
);
CREATE TABLE stripe_events (
    id text PRIMARY KEY,
    type text NOT NULL,
    received_at timestamptz NOT NULL
);
