-- Group dues: a price per period on a group (JSON: amount in the currency's minor units,
-- currency, period week|month|year, time_zone), charged to its members at each period's
-- start in the group's zone. The ledger and "I paid" claims belong to a game or to a
-- group (exactly one); a group's owed rows name their period (its first day).
-- SQLite cannot drop a NOT NULL: both tables are made again with every row as it was
-- (a dropped table's rows go without its triggers firing); the ledger's triggers return.
ALTER TABLE sport_groups ADD COLUMN dues TEXT;
CREATE TABLE ledger_entries_new (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    id TEXT NOT NULL UNIQUE,
    event_id TEXT REFERENCES events(id),
    group_id TEXT REFERENCES sport_groups(id),
    period TEXT,
    user_id TEXT NOT NULL REFERENCES users(id),
    kind TEXT NOT NULL CHECK (kind IN ('owed', 'paid', 'waived', 'refunded')),
    reason TEXT NOT NULL,
    amount INTEGER NOT NULL,
    currency TEXT NOT NULL,
    means TEXT CHECK (means IN ('cash', 'transfer', 'card')),
    recorded_by TEXT REFERENCES users(id),
    at REAL NOT NULL,
    note TEXT NOT NULL DEFAULT '',
    related_id TEXT,
    reference TEXT UNIQUE,
    CHECK ((event_id IS NULL) <> (group_id IS NULL))
);
INSERT INTO ledger_entries_new (seq, id, event_id, user_id, kind, reason, amount, currency, means, recorded_by, at, note, related_id, reference)
SELECT seq, id, event_id, user_id, kind, reason, amount, currency, means, recorded_by, at, note, related_id, reference FROM ledger_entries;
DROP TABLE ledger_entries;
ALTER TABLE ledger_entries_new RENAME TO ledger_entries;
CREATE INDEX ledger_entries_event ON ledger_entries (event_id, user_id, seq);
CREATE INDEX ledger_entries_user ON ledger_entries (user_id, seq);
CREATE INDEX ledger_entries_group ON ledger_entries (group_id, user_id, seq);
CREATE TRIGGER ledger_no_update BEFORE UPDATE ON ledger_entries BEGIN SELECT RAISE(ABORT, 'ledger_entries is append-only'); END;
CREATE TRIGGER ledger_no_delete BEFORE DELETE ON ledger_entries BEGIN SELECT RAISE(ABORT, 'ledger_entries is append-only'); END;
CREATE TRIGGER ledger_no_replace BEFORE INSERT ON ledger_entries WHEN EXISTS (SELECT 1 FROM ledger_entries WHERE id = NEW.id OR seq = NEW.seq OR reference = NEW.reference) BEGIN SELECT RAISE(ABORT, 'ledger_entries is append-only'); END;
CREATE TABLE payment_claims_new (
    id TEXT PRIMARY KEY,
    event_id TEXT REFERENCES events(id),
    group_id TEXT REFERENCES sport_groups(id),
    user_id TEXT NOT NULL REFERENCES users(id),
    amount INTEGER NOT NULL,
    currency TEXT NOT NULL,
    means TEXT NOT NULL CHECK (means IN ('cash', 'transfer')),
    note TEXT NOT NULL DEFAULT '',
    status TEXT NOT NULL CHECK (status IN ('pending', 'confirmed', 'declined')),
    created_at REAL NOT NULL,
    decided_by TEXT REFERENCES users(id),
    decided_at REAL,
    CHECK ((event_id IS NULL) <> (group_id IS NULL))
);
INSERT INTO payment_claims_new (id, event_id, user_id, amount, currency, means, note, status, created_at, decided_by, decided_at)
SELECT id, event_id, user_id, amount, currency, means, note, status, created_at, decided_by, decided_at FROM payment_claims;
DROP TABLE payment_claims;
ALTER TABLE payment_claims_new RENAME TO payment_claims;
CREATE INDEX payment_claims_event ON payment_claims (event_id, status, created_at);
CREATE INDEX payment_claims_group ON payment_claims (group_id, status, created_at);
