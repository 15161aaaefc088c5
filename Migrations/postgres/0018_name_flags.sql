-- Names whose words mix letters of scripts that look alike (Latin, Greek, Cyrillic,
-- Armenian, Cherokee): "Аlex" with a Cyrillic А passes for "Alex". Not refused —
-- such names are rare but real — only listed for moderators (`sportlook reports`).
-- A name written again without the mix clears its flag.
CREATE TABLE name_flags (
    user_id uuid PRIMARY KEY REFERENCES users(id) ON DELETE CASCADE,
    name text NOT NULL,
    scripts text NOT NULL,
    flagged_at timestamptz NOT NULL
);
CREATE INDEX name_flags_time ON name_flags (flagged_at);
