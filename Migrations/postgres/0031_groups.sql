-- Groups: the club, the team, the Tuesday crowd (the table is sport_groups: GROUPS
-- is an SQL keyword). A group has a home area (snapped like people's locations),
-- sports, a join policy (public: anyone joins; approval: an admin accepts requests;
-- invite: only with the invite link) and a visibility (listed: found nearby;
-- unlisted: only by its link). Its owner, admins and members are
-- group_members; people asking to join are group_requests; banned people cannot ask
-- or join again. invite_digest is the SHA-256 of the live invite link's secret (none
-- when revoked).
CREATE TABLE sport_groups (
    id uuid PRIMARY KEY,
    name text NOT NULL,
    description text NOT NULL DEFAULT '',
    lat double precision NOT NULL,
    lon double precision NOT NULL,
    policy text NOT NULL CHECK (policy IN ('public', 'approval', 'invite')),
    visibility text NOT NULL CHECK (visibility IN ('listed', 'unlisted')),
    owner_id uuid NOT NULL REFERENCES users(id),
    member_count integer NOT NULL DEFAULT 1,
    invite_digest text UNIQUE,
    status text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'deleted')),
    version bigint NOT NULL DEFAULT 1,
    created_at timestamptz NOT NULL,
    updated_at timestamptz NOT NULL
);
CREATE INDEX sport_groups_updated ON sport_groups (updated_at);
CREATE TABLE group_sports (
    group_id uuid NOT NULL REFERENCES sport_groups(id) ON DELETE CASCADE,
    sport_slug text NOT NULL REFERENCES sports(slug),
    PRIMARY KEY (group_id, sport_slug)
);
CREATE TABLE group_members (
    group_id uuid NOT NULL REFERENCES sport_groups(id) ON DELETE CASCADE,
    user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    role text NOT NULL CHECK (role IN ('owner', 'admin', 'member')),
    joined_at timestamptz NOT NULL,
    PRIMARY KEY (group_id, user_id)
);
CREATE INDEX group_members_user ON group_members (user_id);
CREATE TABLE group_requests (
    group_id uuid NOT NULL REFERENCES sport_groups(id) ON DELETE CASCADE,
    user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    message text NOT NULL DEFAULT '',
    created_at timestamptz NOT NULL,
    PRIMARY KEY (group_id, user_id)
);
CREATE TABLE group_bans (
    group_id uuid NOT NULL REFERENCES sport_groups(id) ON DELETE CASCADE,
    user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    banned_by uuid NOT NULL REFERENCES users(id),
    banned_at timestamptz NOT NULL,
    PRIMARY KEY (group_id, user_id)
);
