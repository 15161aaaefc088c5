-- Uploaded images. A medium is one upload (its use decides its variants); each
-- variant is a JPEG in the blob store under a content-addressed key. Pictures of
-- people and events are now uploads of this service: the free image URLs are
-- dropped (they let whoever set one learn the address of everyone who looked).
CREATE TABLE media (
    id uuid PRIMARY KEY,
    owner_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    use text NOT NULL CHECK (use IN ('profile', 'cover', 'chat')),
    width integer NOT NULL,
    height integer NOT NULL,
    bytes bigint NOT NULL,
    created_at timestamptz NOT NULL,
    attached_at timestamptz
);
CREATE INDEX media_owner ON media (owner_id, created_at);
CREATE INDEX media_unattached ON media (created_at) WHERE attached_at IS NULL;

CREATE TABLE media_variants (
    media_id uuid NOT NULL REFERENCES media(id) ON DELETE CASCADE,
    name text NOT NULL,
    key text NOT NULL,
    width integer NOT NULL,
    height integer NOT NULL,
    bytes integer NOT NULL,
    position integer NOT NULL,
    PRIMARY KEY (media_id, name)
);
CREATE INDEX media_variants_key ON media_variants (key);

-- Every upload, for the hourly quota: kept an hour even when the upload itself was
-- deleted (replacing a photo must not give its upload back).
CREATE TABLE media_upload_log (
    owner_id uuid NOT NULL,
    created_at timestamptz NOT NULL
);
CREATE INDEX media_upload_log_owner ON media_upload_log (owner_id, created_at);

ALTER TABLE users DROP COLUMN image_url;
ALTER TABLE users ADD COLUMN photo_id uuid REFERENCES media(id) ON DELETE SET NULL;
-- The variants' names and keys ("512=<key> 128=<key>"), copied from media_variants
-- when the photo is set, so every list that shows people reads them without a join.
ALTER TABLE users ADD COLUMN photo_variants text;
ALTER TABLE events DROP COLUMN image_url;
ALTER TABLE events ADD COLUMN cover_id uuid REFERENCES media(id) ON DELETE SET NULL;
ALTER TABLE events ADD COLUMN cover_variants text;
