-- Where an account has signed in before: the devices (by the SHA-256 of the device
-- key the server gave them) and the client addresses (by the SHA-256 of the address,
-- an IPv6 address's /64). A password attempt from one of them is not counted against
-- the account, so strangers' wrong guesses cannot lock its owner out.
CREATE TABLE known_sign_ins (
    user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    kind TEXT NOT NULL CHECK (kind IN ('device', 'address')),
    digest TEXT NOT NULL,
    last_used_at REAL NOT NULL,
    PRIMARY KEY (user_id, kind, digest)
);
