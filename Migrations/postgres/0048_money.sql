-- Money: a price on a game or a weekly series (JSON: amount in the currency's minor
-- units, currency, split, late_cancel_hours), and the ledger. Every amount owed, paid,
-- waived or refunded is one row, never changed or removed (the triggers refuse it,
-- whoever asks, as for the audit log); a balance is a sum of rows.
ALTER TABLE events ADD COLUMN price text;
ALTER TABLE series ADD COLUMN price text;
CREATE TABLE ledger_entries (
    seq bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    id uuid NOT NULL UNIQUE,
    event_id uuid NOT NULL REFERENCES events(id),
    user_id uuid NOT NULL REFERENCES users(id),
    kind text NOT NULL CHECK (kind IN ('owed', 'paid', 'waived', 'refunded')),
    reason text NOT NULL,
    -- What the row adds to the person's balance: positive, they owe more.
    amount bigint NOT NULL,
    currency text NOT NULL,
    means text CHECK (means IN ('cash', 'transfer', 'card')),
    -- Who entered it; NULL: the service's own rules (joining, leaving, the split).
    recorded_by uuid REFERENCES users(id),
    at timestamptz NOT NULL,
    note text NOT NULL DEFAULT '',
    -- Another person the row is about (the one who took a late canceller's place).
    related_id uuid,
    -- What the row answers (a claim confirmed): at most one row each.
    reference text UNIQUE
);
CREATE INDEX ledger_entries_event ON ledger_entries (event_id, user_id, seq);
CREATE INDEX ledger_entries_user ON ledger_entries (user_id, seq);
CREATE FUNCTION ledger_append_only() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'ledger_entries is append-only'; END $$;
CREATE TRIGGER ledger_no_change BEFORE UPDATE OR DELETE ON ledger_entries FOR EACH ROW EXECUTE FUNCTION ledger_append_only();
CREATE TRIGGER ledger_no_truncate BEFORE TRUNCATE ON ledger_entries FOR EACH STATEMENT EXECUTE FUNCTION ledger_append_only();
-- "I paid": a player's word, for the organiser to confirm (a payment row) or decline.
CREATE TABLE payment_claims (
    id uuid PRIMARY KEY,
    event_id uuid NOT NULL REFERENCES events(id),
    user_id uuid NOT NULL REFERENCES users(id),
    amount bigint NOT NULL,
    currency text NOT NULL,
    means text NOT NULL CHECK (means IN ('cash', 'transfer')),
    note text NOT NULL DEFAULT '',
    status text NOT NULL CHECK (status IN ('pending', 'confirmed', 'declined')),
    created_at timestamptz NOT NULL,
    decided_by uuid REFERENCES users(id),
    decided_at timestamptz
);
CREATE INDEX payment_claims_event ON payment_claims (event_id, status, created_at);
