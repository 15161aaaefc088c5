-- Devices by platform (issue 21): every registration gets an id (a Web Push
-- endpoint is no path segment), an APNs environment, a browser's keys.
ALTER TABLE devices ADD COLUMN id TEXT;
UPDATE devices SET id = upper(hex(randomblob(4)) || '-' || hex(randomblob(2)) || '-4' || substr(hex(randomblob(2)), 2) || '-'
    || substr('89AB', 1 + (abs(random()) % 4), 1) || substr(hex(randomblob(2)), 2) || '-' || hex(randomblob(6)));
CREATE UNIQUE INDEX devices_id ON devices (id);
ALTER TABLE devices ADD COLUMN environment TEXT;
ALTER TABLE devices ADD COLUMN p256dh TEXT;
ALTER TABLE devices ADD COLUMN auth TEXT;
CREATE INDEX devices_user_created ON devices (user_id, created_at);

-- Which devices a notification job has settled (delivered, or final for that
-- device) while the job itself is retried for the others: a retry sends only to
-- the devices still owed. Removed when the job is settled.
CREATE TABLE push_receipts (
    job_id TEXT NOT NULL,
    device_id TEXT NOT NULL,
    PRIMARY KEY (job_id, device_id)
);
