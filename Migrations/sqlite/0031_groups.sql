-- Groups: the club, the team, the Tuesday crowd (the table is sport_groups: GROUPS
-- is an SQL keyword). A group has a home area (snapped like people's locations),
-- sports, a join policy (public: anyone joins; approval: an admin accepts requests;
-- invite: only with the invite link) and a visibility (listed: found nearby;
-- unlisted: only by its link). Its owner, admins and members are
-- group_members; people asking to join are group_requests; banned people cannot ask
-- or join again. invite_digest is the SHA-256 of the live invite link's secret (none
-- when revoked).
CREATE TABLE sport_groups (
    id TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    description TEXT NOT NULL DEFAULT '',
    lat REAL NOT NULL,
    lon REAL NOT NULL,
    policy TEXT NOT NULL CHECK (policy IN ('public', 'approval', 'invite')),
    visibility TEXT NOT NULL CHECK (visibility IN ('listed', 'unlisted')),
    owner_id TEXT NOT NULL REFERENCES users(id),
    member_count INTEGER NOT NULL DEFAULT 1,
    invite_digest TEXT UNIQUE,
    status TEXT NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'deleted')),
    version INTEGER NOT NULL DEFAULT 1,
    created_at REAL NOT NULL,
    updated_at REAL NOT NULL
);
CREATE INDEX sport_groups_updated ON sport_groups (updated_at);
CREATE TABLE group_sports (
    group_id TEXT NOT NULL REFERENCES sport_groups(id) ON DELETE CASCADE,
    sport_slug TEXT NOT NULL REFERENCES sports(slug),
    PRIMARY KEY (group_id, sport_slug)
);
CREATE TABLE group_members (
    group_id TEXT NOT NULL REFERENCES sport_groups(id) ON DELETE CASCADE,
    user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    role TEXT NOT NULL CHECK (role IN ('owner', 'admin', 'member')),
    joined_at REAL NOT NULL,
    PRIMARY KEY (group_id, user_id)
);
CREATE INDEX group_members_user ON group_members (user_id);
CREATE TABLE group_requests (
    group_id TEXT NOT NULL REFERENCES sport_groups(id) ON DELETE CASCADE,
    user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    message TEXT NOT NULL DEFAULT '',
    created_at REAL NOT NULL,
    PRIMARY KEY (group_id, user_id)
);
CREATE TABLE group_bans (
    group_id TEXT NOT NULL REFERENCES sport_groups(id) ON DELETE CASCADE,
    user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    banned_by TEXT NOT NULL REFERENCES users(id),
    banned_at REAL NOT NULL,
    PRIMARY KEY (group_id, user_id)
);
