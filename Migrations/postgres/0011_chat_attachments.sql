-- A chat message may carry one image (an upload made with use=chat). The variants'
-- names and keys ("2048=<key> 320=<key>") and the largest one's size are copied into
-- the message, so history reads them without a join; deleting the upload (its owner
-- deleted their account) clears them.
ALTER TABLE chat_messages ADD COLUMN attachment_id uuid REFERENCES media(id) ON DELETE SET NULL;
ALTER TABLE chat_messages ADD COLUMN attachment_variants text;
ALTER TABLE chat_messages ADD COLUMN attachment_width integer;
ALTER TABLE chat_messages ADD COLUMN attachment_height integer;
CREATE INDEX chat_messages_attachment ON chat_messages (attachment_id) WHERE attachment_id IS NOT NULL;

-- Secrets every instance sharing the database must agree on (the key that signs
-- chat image URLs), made at random by the first instance that needs one.
CREATE TABLE server_secrets (
    name text PRIMARY KEY,
    value text NOT NULL
);

-- Blobs whose last row was deleted, to remove once that deletion committed. Removing
-- one takes the key's lock and checks again that no upload of the same bytes came
-- meanwhile; what a failure leaves here the collector removes later.
CREATE TABLE media_garbage (
    key text PRIMARY KEY,
    queued_at timestamptz NOT NULL
);
