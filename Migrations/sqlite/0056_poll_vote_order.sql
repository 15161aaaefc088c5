-- Each option's votes in the order they were cast: a vote's answer names the first
-- voters of each option (ChatStatements.PollSeen) by reading along this index rather
-- than sorting every vote of the poll.
CREATE INDEX chat_poll_votes_order ON chat_poll_votes (room_id, seq, position, created_at, user_id);
