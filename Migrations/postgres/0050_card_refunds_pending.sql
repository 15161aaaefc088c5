-- A card refund is kept before Stripe is asked: our own id (the request's idempotency key)
-- and its status, pending until Stripe's webhook says it went through (or failed); Stripe's
-- id once it answered. Pending refunds count against what may still be given back.
ALTER TABLE card_refunds DROP CONSTRAINT card_refunds_pkey;
ALTER TABLE card_refunds ALTER COLUMN refund_id DROP NOT NULL;
ALTER TABLE card_refunds ADD COLUMN id uuid;
UPDATE card_refunds SET id = gen_random_uuid();
ALTER TABLE card_refunds ALTER COLUMN id SET NOT NULL;
ALTER TABLE card_refunds ADD PRIMARY KEY (id);
ALTER TABLE card_refunds ADD CONSTRAINT card_refunds_refund_id UNIQUE (refund_id);
-- Refunds kept before this were made by Stripe already (their webhook enters them in the ledger).
ALTER TABLE card_refunds ADD COLUMN status text NOT NULL DEFAULT 'succeeded' CHECK (status IN ('pending', 'succeeded', 'failed'));
ALTER TABLE card_refunds ALTER COLUMN status DROP DEFAULT;
CREATE INDEX card_refunds_intent ON card_refunds (payment_intent_id);
