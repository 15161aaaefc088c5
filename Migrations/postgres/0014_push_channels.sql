-- Devices by platform (issue 21): every registration gets an id (a Web Push
-- endpoint is no path segment), an APNs environment, a browser's keys.
ALTER TABLE devices ADD COLUMN id uuid;
UPDATE devices SET id = gen_random_uuid();
ALTER TABLE devices ALTER COLUMN id SET NOT NULL;
CREATE UNIQUE INDEX devices_id ON devices (id);
ALTER TABLE devices ADD COLUMN environment text;
ALTER TABLE devices ADD COLUMN p256dh text;
ALTER TABLE devices ADD COLUMN auth text;
CREATE INDEX devices_user_created ON devices (user_id, created_at);

-- Which devices a notification job has settled (delivered, or final for that
-- device) while the job itself is retried for the others: a retry sends only to
-- the devices still owed. Removed when the job is settled.
CREATE TABLE push_receipts (
    job_id uuid NOT NULL,
    device_id uuid NOT NULL,
    PRIMARY KEY (job_id, device_id)
);
