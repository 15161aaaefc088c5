-- A vote in a poll in one round trip: many votes a second go to one room, and each
-- takes the room's next change number under the room's lock. Run by the database, the
-- lock is held for the vote's own statements only, not across round trips to the
-- server. The rules are ChatStore.castVote's (SQLite runs them in the server):
-- the room locked, then read afresh: the poll there and open, in a sign-up list no
-- option chosen that someone else holds, the choices different from the person's
-- own; then the votes written, the change number taken and put on the message, and the
-- change announced on the bus. Answers one row: outcome (voted, unchanged, gone,
-- closed, taken), the change number taken, the option found taken.
CREATE FUNCTION chat_poll_vote(
    p_room uuid, p_seq bigint, p_user uuid, p_positions integer[], p_one_per_option boolean, p_now timestamptz,
    p_channel text, p_notify_head text, p_notify_tail text)
RETURNS TABLE (outcome text, change bigint, taken integer)
LANGUAGE plpgsql VOLATILE AS $$
DECLARE
    v_closes timestamptz;
    v_closed timestamptz;
    v_mine integer[];
    v_taken integer;
    v_change bigint;
BEGIN
    PERFORM 1 FROM rooms WHERE id = p_room FOR UPDATE;
    IF NOT FOUND THEN
        RETURN QUERY SELECT 'gone'::text, NULL::bigint, NULL::integer;
        RETURN;
    END IF;
    SELECT closes_at, closed_at INTO v_closes, v_closed FROM chat_polls WHERE room_id = p_room AND seq = p_seq;
    IF NOT FOUND THEN
        RETURN QUERY SELECT 'gone'::text, NULL::bigint, NULL::integer;
        RETURN;
    END IF;
    IF v_closed IS NOT NULL OR p_now >= v_closes THEN
        RETURN QUERY SELECT 'closed'::text, NULL::bigint, NULL::integer;
        RETURN;
    END IF;
    IF p_one_per_option THEN
        SELECT min(position) INTO v_taken FROM chat_poll_votes
        WHERE room_id = p_room AND seq = p_seq AND user_id <> p_user AND position = ANY (p_positions);
        IF v_taken IS NOT NULL THEN
            RETURN QUERY SELECT 'taken'::text, NULL::bigint, v_taken;
            RETURN;
        END IF;
    END IF;
    SELECT COALESCE(array_agg(position ORDER BY position), '{}') INTO v_mine FROM chat_poll_votes
    WHERE room_id = p_room AND seq = p_seq AND user_id = p_user;
    IF v_mine = (SELECT COALESCE(array_agg(x ORDER BY x), '{}') FROM unnest(p_positions) AS x) THEN
        RETURN QUERY SELECT 'unchanged'::text, NULL::bigint, NULL::integer;
        RETURN;
    END IF;
    DELETE FROM chat_poll_votes WHERE room_id = p_room AND seq = p_seq AND user_id = p_user AND NOT (position = ANY (p_positions));
    INSERT INTO chat_poll_votes (room_id, seq, position, user_id, created_at)
    SELECT p_room, p_seq, x, p_user, p_now FROM unnest(p_positions) AS x WHERE NOT (x = ANY (v_mine)) ORDER BY x;
    UPDATE rooms SET last_change_seq = last_change_seq + 1 WHERE id = p_room RETURNING last_change_seq INTO v_change;
    UPDATE chat_messages SET change_seq = v_change WHERE room_id = p_room AND seq = p_seq;
    PERFORM pg_notify(p_channel, p_notify_head || v_change || p_notify_tail);
    RETURN QUERY SELECT 'voted'::text, v_change, NULL::integer;
END
$$;
