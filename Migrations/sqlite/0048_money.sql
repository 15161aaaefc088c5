-- Money: a price on a game or a weekly series (JSON: amount in the currency's minor
-- units, currency, split, late_cancel_hours), and the ledger. Every amount owed, paid,
-- waived or refunded is one row, never changed or removed (the triggers refuse it,
-- whoever asks, as for the audit log); a balance is a sum of rows.
ALTER TABLE events ADD COLUMN price TEXT;
ALTER TABLE series ADD COLUMN price TEXT;
CREATE TABLE ledger_entries (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    id TEXT NOT NULL UNIQUE,
    event_id TEXT NOT NULL REFERENCES events(id),
    user_id TEXT NOT NULL REFERENCES users(id),
    kind TEXT NOT NULL CHECK (kind IN ('owed', 'paid', 'waived', 'refunded')),
    reason TEXT NOT NULL,
    -- What the row adds to the person's balance: positive, they owe more.
    amount INTEGER NOT NULL,
    currency TEXT NOT NULL,
    means TEXT CHECK (means IN ('cash', 'transfer', 'card')),
    -- Who entered it; NULL: the service's own rules (joining, leaving, the split).
    recorded_by TEXT REFERENCES users(id),
    at REAL NOT NULL,
    note TEXT NOT NULL DEFAULT '',
    -- Another person the row is about (the one who took a late canceller's place).
    related_id TEXT,
    -- What the row answers (a claim confirmed): at most one row each.
    reference TEXT UNIQUE
);
CREATE INDEX ledger_entries_event ON ledger_entries (event_id, user_id, seq);
CREATE INDEX ledger_entries_user ON ledger_entries (user_id, seq);
CREATE TRIGGER ledger_no_update BEFORE UPDATE ON ledger_entries BEGIN SELECT RAISE(ABORT, 'ledger_entries is append-only'); END;
CREATE TRIGGER ledger_no_delete BEFORE DELETE ON ledger_entries BEGIN SELECT RAISE(ABORT, 'ledger_entries is append-only'); END;
-- INSERT OR REPLACE removes the row it replaces without a delete trigger: refused before.
CREATE TRIGGER ledger_no_replace BEFORE INSERT ON ledger_entries WHEN EXISTS (SELECT 1 FROM ledger_entries WHERE id = NEW.id OR seq = NEW.seq OR reference = NEW.reference) BEGIN SELECT RAISE(ABORT, 'ledger_entries is append-only'); END;
-- "I paid": a player's word, for the organiser to confirm (a payment row) or decline.
CREATE TABLE payment_claims (
    id TEXT PRIMARY KEY,
    event_id TEXT NOT NULL REFERENCES events(id),
    user_id TEXT NOT NULL REFERENCES users(id),
    amount INTEGER NOT NULL,
    currency TEXT NOT NULL,
    means TEXT NOT NULL CHECK (means IN ('cash', 'transfer')),
    note TEXT NOT NULL DEFAULT '',
    status TEXT NOT NULL CHECK (status IN ('pending', 'confirmed', 'declined')),
    created_at REAL NOT NULL,
    decided_by TEXT REFERENCES users(id),
    decided_at REAL
);
CREATE INDEX payment_claims_event ON payment_claims (event_id, status, created_at);
