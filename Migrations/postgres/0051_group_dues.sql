-- Group dues: a price per period on a group (JSON: amount in the currency's minor units,
-- currency, period week|month|year, time_zone), charged to its members at each period's
-- start in the group's zone. The ledger and "I paid" claims belong to a game or to a
-- group (exactly one); a group's owed rows name their period (its first day).
ALTER TABLE sport_groups ADD COLUMN dues text;
ALTER TABLE ledger_entries ALTER COLUMN event_id DROP NOT NULL;
ALTER TABLE ledger_entries ADD COLUMN group_id uuid REFERENCES sport_groups(id);
ALTER TABLE ledger_entries ADD COLUMN period text;
ALTER TABLE ledger_entries ADD CONSTRAINT ledger_entries_one_account CHECK ((event_id IS NULL) <> (group_id IS NULL));
CREATE INDEX ledger_entries_group ON ledger_entries (group_id, user_id, seq);
ALTER TABLE payment_claims ALTER COLUMN event_id DROP NOT NULL;
ALTER TABLE payment_claims ADD COLUMN group_id uuid REFERENCES sport_groups(id);
ALTER TABLE payment_claims ADD CONSTRAINT payment_claims_one_account CHECK ((event_id IS NULL) <> (group_id IS NULL));
CREATE INDEX payment_claims_group ON payment_claims (group_id, status, created_at);
