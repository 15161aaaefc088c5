--
-- PostgreSQL database dump
--


-- Dumped from database version 15.18 (Debian 15.18-0+deb12u1)
-- Dumped by pg_dump version 15.18 (Debian 15.18-0+deb12u1)

SET statement_timeout = 0;
SET lock_timeout = 0;
SET idle_in_transaction_session_timeout = 0;
SET client_encoding = 'UTF8';
SET standard_conforming_strings = on;
SELECT pg_catalog.set_config('search_path', '', false);
SET check_function_bodies = false;
SET xmloption = content;
SET client_min_messages = warning;
SET row_security = off;

--
-- Name: audit_log_append_only(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.audit_log_append_only() RETURNS trigger
    LANGUAGE plpgsql
    AS $$ BEGIN RAISE EXCEPTION 'audit_log is append-only'; END $$;


--
-- Name: chat_poll_vote(uuid, bigint, uuid, integer[], boolean, timestamp with time zone, text, text, text); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.chat_poll_vote(p_room uuid, p_seq bigint, p_user uuid, p_positions integer[], p_one_per_option boolean, p_now timestamp with time zone, p_channel text, p_notify_head text, p_notify_tail text) RETURNS TABLE(outcome text, change bigint, taken integer)
    LANGUAGE plpgsql
    AS $$
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


--
-- Name: ledger_append_only(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.ledger_append_only() RETURNS trigger
    LANGUAGE plpgsql
    AS $$ BEGIN RAISE EXCEPTION 'ledger_entries is append-only'; END $$;


SET default_tablespace = '';

SET default_table_access_method = heap;

--
-- Name: access_tokens; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.access_tokens (
    id uuid NOT NULL,
    user_id uuid NOT NULL,
    token_hash text NOT NULL,
    user_agent text,
    created_at timestamp with time zone NOT NULL,
    expires_at timestamp with time zone NOT NULL,
    last_used_at timestamp with time zone,
    revoked_at timestamp with time zone
);


--
-- Name: appeals; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.appeals (
    id uuid NOT NULL,
    user_id uuid NOT NULL,
    action_id uuid NOT NULL,
    statement text NOT NULL,
    status text DEFAULT 'open'::text NOT NULL,
    created_at timestamp with time zone NOT NULL,
    decided_by uuid,
    decided_at timestamp with time zone,
    CONSTRAINT appeals_status_check CHECK ((status = ANY (ARRAY['open'::text, 'upheld'::text, 'reversed'::text])))
);


--
-- Name: attendance_records; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.attendance_records (
    event_id uuid NOT NULL,
    user_id uuid NOT NULL,
    checked_in_at timestamp with time zone,
    mark text,
    marked_at timestamp with time zone,
    late_cancelled_at timestamp with time zone,
    CONSTRAINT attendance_records_mark_check CHECK ((mark = ANY (ARRAY['attended'::text, 'no_show'::text, 'excused'::text])))
);


--
-- Name: attendances; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.attendances (
    event_id uuid NOT NULL,
    user_id uuid NOT NULL,
    status text NOT NULL,
    queue_number integer,
    joined_at timestamp with time zone NOT NULL,
    offer_expires_at timestamp with time zone,
    CONSTRAINT attendances_status_check CHECK ((status = ANY (ARRAY['going'::text, 'waitlisted'::text])))
);


--
-- Name: audit_log; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.audit_log (
    id uuid NOT NULL,
    at timestamp with time zone NOT NULL,
    actor_id uuid,
    actor text NOT NULL,
    action text NOT NULL,
    target_type text NOT NULL,
    target_id text NOT NULL,
    reason text NOT NULL,
    details text DEFAULT '{}'::text NOT NULL,
    seq bigint NOT NULL
);


--
-- Name: audit_log_seq_seq; Type: SEQUENCE; Schema: public; Owner: -
--

ALTER TABLE public.audit_log ALTER COLUMN seq ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME public.audit_log_seq_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);


--
-- Name: blocks; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.blocks (
    blocker_id uuid NOT NULL,
    blocked_id uuid NOT NULL,
    created_at timestamp with time zone NOT NULL
);


--
-- Name: card_payments; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.card_payments (
    session_id text NOT NULL,
    event_id uuid NOT NULL,
    user_id uuid NOT NULL,
    stripe_account_id text NOT NULL,
    amount bigint NOT NULL,
    currency text NOT NULL,
    status text NOT NULL,
    payment_intent_id text,
    created_at timestamp with time zone NOT NULL,
    CONSTRAINT card_payments_status_check CHECK ((status = ANY (ARRAY['open'::text, 'paid'::text])))
);


--
-- Name: card_refunds; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.card_refunds (
    refund_id text,
    event_id uuid NOT NULL,
    user_id uuid NOT NULL,
    payment_intent_id text NOT NULL,
    amount bigint NOT NULL,
    recorded_by uuid,
    created_at timestamp with time zone NOT NULL,
    id uuid NOT NULL,
    status text NOT NULL,
    CONSTRAINT card_refunds_status_check CHECK ((status = ANY (ARRAY['pending'::text, 'succeeded'::text, 'failed'::text])))
);


--
-- Name: chat_instances; Type: TABLE; Schema: public; Owner: -
--

CREATE UNLOGGED TABLE public.chat_instances (
    instance_id text NOT NULL,
    seen_at timestamp with time zone NOT NULL
);


--
-- Name: chat_messages; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.chat_messages (
    id uuid NOT NULL,
    room_id uuid NOT NULL,
    seq bigint NOT NULL,
    sender_id uuid NOT NULL,
    client_id text NOT NULL,
    body text NOT NULL,
    created_at timestamp with time zone NOT NULL,
    attachment_id uuid,
    attachment_variants text,
    attachment_width integer,
    attachment_height integer,
    reply_to_seq bigint,
    mentions text,
    change_seq bigint DEFAULT 0 NOT NULL,
    edited_at timestamp with time zone,
    deleted_at timestamp with time zone,
    poll boolean DEFAULT false NOT NULL
);


--
-- Name: chat_poll_options; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.chat_poll_options (
    room_id uuid NOT NULL,
    seq bigint NOT NULL,
    "position" integer NOT NULL,
    label text NOT NULL,
    starts_at timestamp with time zone,
    ends_at timestamp with time zone
);


--
-- Name: chat_poll_votes; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.chat_poll_votes (
    room_id uuid NOT NULL,
    seq bigint NOT NULL,
    "position" integer NOT NULL,
    user_id uuid NOT NULL,
    created_at timestamp with time zone NOT NULL
);


--
-- Name: chat_polls; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.chat_polls (
    room_id uuid NOT NULL,
    seq bigint NOT NULL,
    kind text NOT NULL,
    multiple boolean NOT NULL,
    anonymous boolean NOT NULL,
    one_per_option boolean NOT NULL,
    closes_at timestamp with time zone NOT NULL,
    closed_at timestamp with time zone,
    reminded_at timestamp with time zone,
    made_at timestamp with time zone,
    made_event_id uuid,
    made_series_id uuid,
    CONSTRAINT chat_polls_kind_check CHECK ((kind = ANY (ARRAY['choice'::text, 'time'::text])))
);


--
-- Name: chat_presence; Type: TABLE; Schema: public; Owner: -
--

CREATE UNLOGGED TABLE public.chat_presence (
    instance_id text NOT NULL,
    user_id uuid NOT NULL,
    room_id uuid NOT NULL,
    seen_at timestamp with time zone NOT NULL
);


--
-- Name: chat_reactions; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.chat_reactions (
    room_id uuid NOT NULL,
    seq bigint NOT NULL,
    user_id uuid NOT NULL,
    emoji text NOT NULL,
    created_at timestamp with time zone NOT NULL
);


--
-- Name: chat_reads; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.chat_reads (
    room_id uuid NOT NULL,
    user_id uuid NOT NULL,
    last_read_seq bigint NOT NULL,
    updated_at timestamp with time zone NOT NULL,
    muted_until timestamp with time zone
);


--
-- Name: conversations; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.conversations (
    room_id uuid NOT NULL,
    user_low uuid NOT NULL,
    user_high uuid NOT NULL,
    created_by uuid NOT NULL,
    state text NOT NULL,
    requested_by uuid,
    created_at timestamp with time zone NOT NULL,
    CONSTRAINT conversations_check CHECK ((user_low < user_high)),
    CONSTRAINT conversations_state_check CHECK ((state = ANY (ARRAY['new'::text, 'requested'::text, 'open'::text, 'declined'::text])))
);


--
-- Name: data_exports; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.data_exports (
    id uuid NOT NULL,
    user_id uuid NOT NULL,
    requested_by uuid,
    status text NOT NULL,
    requested_at timestamp with time zone NOT NULL,
    ready_at timestamp with time zone,
    expires_at timestamp with time zone,
    size bigint,
    archive bytea,
    CONSTRAINT data_exports_status_check CHECK ((status = ANY (ARRAY['pending'::text, 'ready'::text, 'expired'::text])))
);


--
-- Name: devices; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.devices (
    token text NOT NULL,
    user_id uuid NOT NULL,
    platform text NOT NULL,
    created_at timestamp with time zone NOT NULL,
    session_id uuid,
    id uuid NOT NULL,
    environment text,
    p256dh text,
    auth text,
    CONSTRAINT devices_platform_check CHECK ((platform = ANY (ARRAY['ios'::text, 'android'::text, 'web'::text])))
);


--
-- Name: email_codes; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.email_codes (
    user_id uuid NOT NULL,
    purpose text NOT NULL,
    digest text NOT NULL,
    tries integer DEFAULT 0 NOT NULL,
    expires_at timestamp with time zone NOT NULL,
    created_at timestamp with time zone NOT NULL,
    request text DEFAULT ''::text NOT NULL,
    known_place boolean DEFAULT false NOT NULL
);


--
-- Name: event_bans; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.event_bans (
    event_id uuid NOT NULL,
    user_id uuid NOT NULL,
    banned_at timestamp with time zone NOT NULL
);


--
-- Name: event_maybes; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.event_maybes (
    event_id uuid NOT NULL,
    user_id uuid NOT NULL,
    answered_at timestamp with time zone NOT NULL
);


--
-- Name: events; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.events (
    id uuid NOT NULL,
    organiser_id uuid NOT NULL,
    sport_slug text NOT NULL,
    title text NOT NULL,
    description text DEFAULT ''::text NOT NULL,
    address text,
    lat double precision NOT NULL,
    lon double precision NOT NULL,
    starts_at timestamp with time zone NOT NULL,
    ends_at timestamp with time zone NOT NULL,
    capacity integer,
    status text DEFAULT 'active'::text NOT NULL,
    going_count integer DEFAULT 0 NOT NULL,
    waitlist_count integer DEFAULT 0 NOT NULL,
    waitlist_counter integer DEFAULT 0 NOT NULL,
    version bigint DEFAULT 1 NOT NULL,
    created_at timestamp with time zone NOT NULL,
    updated_at timestamp with time zone NOT NULL,
    cover_id uuid,
    cover_variants text,
    time_zone text DEFAULT 'UTC'::text NOT NULL,
    reminders text DEFAULT '[1440,120]'::text NOT NULL,
    reminded_at timestamp with time zone,
    series_id uuid,
    occurrence_date text,
    answer_deadline timestamp with time zone,
    record_last_games integer,
    record_max_no_shows integer,
    min_players integer,
    decide_minutes integer DEFAULT 120 NOT NULL,
    game_on_at timestamp with time zone,
    offered_count integer DEFAULT 0 NOT NULL,
    level_min_half integer,
    level_max_half integer,
    audience text DEFAULT 'anyone'::text NOT NULL,
    group_id uuid,
    members_only boolean DEFAULT false NOT NULL,
    timed_at timestamp with time zone,
    competitive boolean DEFAULT false NOT NULL,
    price text,
    CONSTRAINT events_audience_check CHECK ((audience = ANY (ARRAY['anyone'::text, 'women'::text, 'men'::text, 'mixed'::text]))),
    CONSTRAINT events_status_check CHECK ((status = ANY (ARRAY['active'::text, 'cancelled'::text])))
);


--
-- Name: game_results; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.game_results (
    event_id uuid NOT NULL,
    scores text NOT NULL,
    entered_by uuid,
    entered_team integer NOT NULL,
    entered_at timestamp with time zone NOT NULL,
    status text NOT NULL,
    answered_by uuid,
    answered_at timestamp with time zone,
    applied_at timestamp with time zone,
    CONSTRAINT game_results_status_check CHECK ((status = ANY (ARRAY['pending'::text, 'confirmed'::text, 'disputed'::text, 'stood'::text])))
);


--
-- Name: group_bans; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.group_bans (
    group_id uuid NOT NULL,
    user_id uuid NOT NULL,
    banned_by uuid NOT NULL,
    banned_at timestamp with time zone NOT NULL
);


--
-- Name: group_members; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.group_members (
    group_id uuid NOT NULL,
    user_id uuid NOT NULL,
    role text NOT NULL,
    joined_at timestamp with time zone NOT NULL,
    muted boolean DEFAULT false NOT NULL,
    CONSTRAINT group_members_role_check CHECK ((role = ANY (ARRAY['owner'::text, 'admin'::text, 'member'::text])))
);


--
-- Name: group_requests; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.group_requests (
    group_id uuid NOT NULL,
    user_id uuid NOT NULL,
    message text DEFAULT ''::text NOT NULL,
    created_at timestamp with time zone NOT NULL
);


--
-- Name: group_sports; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.group_sports (
    group_id uuid NOT NULL,
    sport_slug text NOT NULL
);


--
-- Name: identities; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.identities (
    provider text NOT NULL,
    subject text NOT NULL,
    user_id uuid NOT NULL,
    email text,
    created_at timestamp with time zone NOT NULL
);


--
-- Name: invitations; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.invitations (
    id uuid NOT NULL,
    event_id uuid NOT NULL,
    inviter_id uuid NOT NULL,
    invitee_id uuid NOT NULL,
    status text NOT NULL,
    created_at timestamp with time zone NOT NULL,
    responded_at timestamp with time zone,
    hidden boolean DEFAULT false NOT NULL,
    CONSTRAINT invitations_status_check CHECK ((status = ANY (ARRAY['pending'::text, 'accepted'::text, 'declined'::text, 'revoked'::text])))
);


--
-- Name: jobs; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.jobs (
    id uuid NOT NULL,
    kind text NOT NULL,
    payload text NOT NULL,
    dedupe_key text,
    state text NOT NULL,
    attempts integer DEFAULT 0 NOT NULL,
    run_at timestamp with time zone NOT NULL,
    lease_until timestamp with time zone,
    locked_by text,
    last_error text,
    enqueued_at timestamp with time zone NOT NULL,
    finished_at timestamp with time zone,
    subject text,
    CONSTRAINT jobs_state_check CHECK ((state = ANY (ARRAY['queued'::text, 'running'::text, 'done'::text, 'dead'::text])))
);


--
-- Name: known_sign_ins; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.known_sign_ins (
    user_id uuid NOT NULL,
    kind text NOT NULL,
    digest text NOT NULL,
    last_used_at timestamp with time zone NOT NULL,
    CONSTRAINT known_sign_ins_kind_check CHECK ((kind = ANY (ARRAY['device'::text, 'address'::text])))
);


--
-- Name: ledger_entries; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.ledger_entries (
    seq bigint NOT NULL,
    id uuid NOT NULL,
    event_id uuid,
    user_id uuid NOT NULL,
    kind text NOT NULL,
    reason text NOT NULL,
    amount bigint NOT NULL,
    currency text NOT NULL,
    means text,
    recorded_by uuid,
    at timestamp with time zone NOT NULL,
    note text DEFAULT ''::text NOT NULL,
    related_id uuid,
    reference text,
    group_id uuid,
    period text,
    CONSTRAINT ledger_entries_kind_check CHECK ((kind = ANY (ARRAY['owed'::text, 'paid'::text, 'waived'::text, 'refunded'::text]))),
    CONSTRAINT ledger_entries_means_check CHECK ((means = ANY (ARRAY['cash'::text, 'transfer'::text, 'card'::text]))),
    CONSTRAINT ledger_entries_one_account CHECK (((event_id IS NULL) <> (group_id IS NULL)))
);


--
-- Name: ledger_entries_seq_seq; Type: SEQUENCE; Schema: public; Owner: -
--

ALTER TABLE public.ledger_entries ALTER COLUMN seq ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME public.ledger_entries_seq_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);


--
-- Name: level_changes; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.level_changes (
    id uuid NOT NULL,
    user_id uuid NOT NULL,
    sport_slug text NOT NULL,
    event_id uuid,
    rating_before integer NOT NULL,
    rating_after integer NOT NULL,
    at timestamp with time zone NOT NULL
);


--
-- Name: login_failures; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.login_failures (
    subject text NOT NULL,
    failed_at timestamp with time zone NOT NULL,
    attempt uuid,
    settled boolean DEFAULT true NOT NULL
);


--
-- Name: media; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.media (
    id uuid NOT NULL,
    owner_id uuid NOT NULL,
    use text NOT NULL,
    width integer NOT NULL,
    height integer NOT NULL,
    bytes bigint NOT NULL,
    created_at timestamp with time zone NOT NULL,
    attached_at timestamp with time zone,
    CONSTRAINT media_use_check CHECK ((use = ANY (ARRAY['profile'::text, 'cover'::text, 'chat'::text])))
);


--
-- Name: media_garbage; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.media_garbage (
    key text NOT NULL,
    queued_at timestamp with time zone NOT NULL
);


--
-- Name: media_upload_log; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.media_upload_log (
    owner_id uuid NOT NULL,
    created_at timestamp with time zone NOT NULL
);


--
-- Name: media_variants; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.media_variants (
    media_id uuid NOT NULL,
    name text NOT NULL,
    key text NOT NULL,
    width integer NOT NULL,
    height integer NOT NULL,
    bytes integer NOT NULL,
    "position" integer NOT NULL
);


--
-- Name: name_flags; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.name_flags (
    user_id uuid NOT NULL,
    name text NOT NULL,
    scripts text NOT NULL,
    flagged_at timestamp with time zone NOT NULL
);


--
-- Name: network_activity; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.network_activity (
    network text NOT NULL,
    kind text NOT NULL,
    minute timestamp with time zone NOT NULL,
    count integer NOT NULL,
    CONSTRAINT network_activity_kind_check CHECK ((kind = ANY (ARRAY['registration'::text, 'failed_sign_in'::text])))
);


--
-- Name: notifications; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.notifications (
    id uuid NOT NULL,
    user_id uuid NOT NULL,
    kind text NOT NULL,
    data text NOT NULL,
    job_id uuid,
    collapse_key text,
    created_at timestamp with time zone NOT NULL,
    read_at timestamp with time zone,
    title text,
    body text
);


--
-- Name: payment_claims; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.payment_claims (
    id uuid NOT NULL,
    event_id uuid,
    user_id uuid NOT NULL,
    amount bigint NOT NULL,
    currency text NOT NULL,
    means text NOT NULL,
    note text DEFAULT ''::text NOT NULL,
    status text NOT NULL,
    created_at timestamp with time zone NOT NULL,
    decided_by uuid,
    decided_at timestamp with time zone,
    group_id uuid,
    CONSTRAINT payment_claims_means_check CHECK ((means = ANY (ARRAY['cash'::text, 'transfer'::text]))),
    CONSTRAINT payment_claims_one_account CHECK (((event_id IS NULL) <> (group_id IS NULL))),
    CONSTRAINT payment_claims_status_check CHECK ((status = ANY (ARRAY['pending'::text, 'confirmed'::text, 'declined'::text])))
);


--
-- Name: payout_accounts; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.payout_accounts (
    user_id uuid NOT NULL,
    stripe_account_id text NOT NULL,
    charges_enabled boolean DEFAULT false NOT NULL,
    created_at timestamp with time zone NOT NULL,
    updated_at timestamp with time zone NOT NULL
);


--
-- Name: push_receipts; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.push_receipts (
    job_id uuid NOT NULL,
    device_id uuid NOT NULL
);


--
-- Name: registration_blocks; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.registration_blocks (
    id uuid NOT NULL,
    kind text NOT NULL,
    value text NOT NULL,
    reason text NOT NULL,
    created_by uuid,
    created_at timestamp with time zone NOT NULL,
    CONSTRAINT registration_blocks_kind_check CHECK ((kind = ANY (ARRAY['network'::text, 'email_domain'::text])))
);


--
-- Name: reports; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.reports (
    id uuid NOT NULL,
    reporter_id uuid NOT NULL,
    target_type text NOT NULL,
    target_id uuid NOT NULL,
    reason text NOT NULL,
    details text,
    status text DEFAULT 'open'::text NOT NULL,
    created_at timestamp with time zone NOT NULL,
    content text,
    outcome text,
    resolved_by uuid,
    resolved_at timestamp with time zone,
    CONSTRAINT reports_status_check CHECK ((status = ANY (ARRAY['open'::text, 'resolved'::text]))),
    CONSTRAINT reports_target_type_check CHECK ((target_type = ANY (ARRAY['user'::text, 'event'::text, 'message'::text, 'group'::text, 'photo'::text])))
);


--
-- Name: rooms; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.rooms (
    id uuid NOT NULL,
    kind text NOT NULL,
    event_id uuid,
    last_message_seq bigint DEFAULT 0 NOT NULL,
    last_change_seq bigint DEFAULT 0 NOT NULL,
    last_activity_at timestamp with time zone NOT NULL,
    created_at timestamp with time zone NOT NULL,
    group_id uuid,
    CONSTRAINT rooms_kind_check CHECK ((kind = ANY (ARRAY['event'::text, 'conversation'::text, 'group'::text])))
);


--
-- Name: schema_migrations; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.schema_migrations (
    version integer NOT NULL,
    name text NOT NULL,
    checksum text NOT NULL,
    applied_at text NOT NULL
);


--
-- Name: series; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.series (
    id uuid NOT NULL,
    organiser_id uuid NOT NULL,
    group_id uuid,
    title text NOT NULL,
    sport_slug text NOT NULL,
    description text DEFAULT ''::text NOT NULL,
    address text,
    lat double precision NOT NULL,
    lon double precision NOT NULL,
    capacity integer,
    time_zone text NOT NULL,
    reminders text NOT NULL,
    start_minutes integer NOT NULL,
    duration_minutes integer NOT NULL,
    first_date text NOT NULL,
    rule text NOT NULL,
    status text DEFAULT 'active'::text NOT NULL,
    made_through text NOT NULL,
    version bigint DEFAULT 1 NOT NULL,
    created_at timestamp with time zone NOT NULL,
    updated_at timestamp with time zone NOT NULL,
    followed_by uuid,
    members_only boolean DEFAULT false NOT NULL,
    price text,
    CONSTRAINT series_status_check CHECK ((status = ANY (ARRAY['active'::text, 'ended'::text])))
);


--
-- Name: series_opt_outs; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.series_opt_outs (
    series_id uuid NOT NULL,
    user_id uuid NOT NULL,
    occurrence_date text NOT NULL
);


--
-- Name: series_regulars; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.series_regulars (
    series_id uuid NOT NULL,
    user_id uuid NOT NULL,
    joined_at timestamp with time zone NOT NULL
);


--
-- Name: series_skips; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.series_skips (
    series_id uuid NOT NULL,
    occurrence_date text NOT NULL
);


--
-- Name: server_secrets; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.server_secrets (
    name text NOT NULL,
    value text NOT NULL
);


--
-- Name: sign_in_networks; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.sign_in_networks (
    user_id uuid NOT NULL,
    network text NOT NULL,
    last_used_at timestamp with time zone NOT NULL
);


--
-- Name: sport_groups; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.sport_groups (
    id uuid NOT NULL,
    name text NOT NULL,
    description text DEFAULT ''::text NOT NULL,
    lat double precision NOT NULL,
    lon double precision NOT NULL,
    policy text NOT NULL,
    visibility text NOT NULL,
    owner_id uuid NOT NULL,
    member_count integer DEFAULT 1 NOT NULL,
    invite_digest text,
    status text DEFAULT 'active'::text NOT NULL,
    version bigint DEFAULT 1 NOT NULL,
    created_at timestamp with time zone NOT NULL,
    updated_at timestamp with time zone NOT NULL,
    cover_id uuid,
    cover_variants text,
    dues text,
    CONSTRAINT sport_groups_policy_check CHECK ((policy = ANY (ARRAY['public'::text, 'approval'::text, 'invite'::text]))),
    CONSTRAINT sport_groups_status_check CHECK ((status = ANY (ARRAY['active'::text, 'deleted'::text]))),
    CONSTRAINT sport_groups_visibility_check CHECK ((visibility = ANY (ARRAY['listed'::text, 'unlisted'::text])))
);


--
-- Name: sports; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.sports (
    slug text NOT NULL,
    name text NOT NULL,
    "bit" integer NOT NULL,
    CONSTRAINT sports_bit_check CHECK ((("bit" >= 0) AND ("bit" <= 63)))
);


--
-- Name: stripe_events; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.stripe_events (
    id text NOT NULL,
    type text NOT NULL,
    received_at timestamp with time zone NOT NULL
);


--
-- Name: substitute_offers; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.substitute_offers (
    request_id uuid NOT NULL,
    user_id uuid NOT NULL,
    created_at timestamp with time zone NOT NULL
);


--
-- Name: substitute_requests; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.substitute_requests (
    id uuid NOT NULL,
    event_id uuid NOT NULL,
    requester_id uuid NOT NULL,
    status text NOT NULL,
    created_at timestamp with time zone NOT NULL,
    offered_count integer NOT NULL,
    expires_at timestamp with time zone NOT NULL,
    filled_by uuid,
    closed_at timestamp with time zone,
    CONSTRAINT substitute_requests_status_check CHECK ((status = ANY (ARRAY['open'::text, 'filled'::text, 'withdrawn'::text, 'expired'::text])))
);


--
-- Name: team_plans; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.team_plans (
    event_id uuid NOT NULL,
    team_count integer NOT NULL,
    method text NOT NULL,
    publish_minutes integer,
    published_at timestamp with time zone,
    updated_at timestamp with time zone NOT NULL,
    CONSTRAINT team_plans_method_check CHECK ((method = ANY (ARRAY['balanced'::text, 'random'::text]))),
    CONSTRAINT team_plans_publish_minutes_check CHECK (((publish_minutes >= 0) AND (publish_minutes <= 10080))),
    CONSTRAINT team_plans_team_count_check CHECK (((team_count >= 2) AND (team_count <= 4)))
);


--
-- Name: team_players; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.team_players (
    event_id uuid NOT NULL,
    user_id uuid NOT NULL,
    team integer NOT NULL,
    fixed boolean DEFAULT false NOT NULL,
    CONSTRAINT team_players_team_check CHECK (((team >= 0) AND (team <= 3)))
);


--
-- Name: used_tokens; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.used_tokens (
    digest text NOT NULL,
    expires_at timestamp with time zone NOT NULL
);


--
-- Name: user_levels; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.user_levels (
    user_id uuid NOT NULL,
    sport_slug text NOT NULL,
    level_half integer NOT NULL,
    rating integer,
    rated_games integer DEFAULT 0 NOT NULL,
    CONSTRAINT user_levels_level_half_check CHECK (((level_half >= 0) AND (level_half <= 14))),
    CONSTRAINT user_levels_rating_check CHECK (((rating >= 0) AND (rating <= 700)))
);


--
-- Name: user_sports; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.user_sports (
    user_id uuid NOT NULL,
    sport_slug text NOT NULL
);


--
-- Name: users; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.users (
    id uuid NOT NULL,
    email text NOT NULL,
    email_normalized text NOT NULL,
    name text NOT NULL,
    password_hash text NOT NULL,
    bio text DEFAULT ''::text NOT NULL,
    lat double precision,
    lon double precision,
    discoverable boolean DEFAULT false NOT NULL,
    version bigint DEFAULT 1 NOT NULL,
    created_at timestamp with time zone NOT NULL,
    updated_at timestamp with time zone NOT NULL,
    deleted_at timestamp with time zone,
    photo_id uuid,
    photo_variants text,
    email_verified boolean DEFAULT false NOT NULL,
    reminders boolean DEFAULT true NOT NULL,
    language text DEFAULT 'en'::text NOT NULL,
    calendar_feed text,
    gender text,
    staff_role text,
    limited_at timestamp with time zone,
    suspended_at timestamp with time zone,
    suspended_until timestamp with time zone,
    CONSTRAINT users_gender_check CHECK ((gender = ANY (ARRAY['woman'::text, 'man'::text]))),
    CONSTRAINT users_staff_role_check CHECK ((staff_role = ANY (ARRAY['moderator'::text, 'admin'::text])))
);


--
-- Data for Name: access_tokens; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.access_tokens (id, user_id, token_hash, user_agent, created_at, expires_at, last_used_at, revoked_at) FROM stdin;
ed1f0a0b-cbb2-4859-9aeb-767ff8460279	30cb169b-8f06-4f54-bc5c-b94667351093	d800f1e72faeaf91e9535c71386abf158ecd125eed24faeca438539db00b8926	Python-urllib/3.11	2026-11-30 12:24:29.869999+00	2026-12-30 12:24:29.869999+00	2026-11-30 12:24:33.711999+00	\N
154fa497-0def-42a8-b29d-6d0544207914	7e70f9a1-6d66-454a-95dc-4ae3bce69c98	3214ffcdf9fb00ba60ef6c8e63cc499c80bbb3aae1033c1e3eecf908c672d3bd	Python-urllib/3.11	2026-11-30 12:24:29.924+00	2026-12-30 12:24:29.924+00	2026-11-30 12:24:34.006+00	\N
2f847a71-4200-4b90-a075-6b23b7afdc1d	b323cd29-6efb-49f9-93c4-0d65f7ab15ab	53e86ff469d0a4e903bd89b4ec787e8f396a7ecd1d68e3ce4290063a641e4882	Python-urllib/3.11	2026-11-30 12:24:30.292+00	2026-12-30 12:24:30.292+00	2026-11-30 12:24:34.279+00	\N
00e09453-2cab-4dcf-878c-35f9aa85d2db	5aebea80-dde7-4e45-a425-caf3f026367a	43c27f412238eccb62a5e1894610365eee9922c1d7fa97a38ef629a736cebbf5	Python-urllib/3.11	2026-11-30 12:24:31.039+00	2026-12-30 12:24:31.039+00	2026-11-30 12:24:34.573+00	\N
99fa5a73-2474-4435-b7e2-282d1efa90a2	2cd66238-c290-4651-ae20-ca7f8dce6bd8	a5ead8976e3027586e8909dd6183941ee359bcba025cbd5fa7a5ed73d1089002	Python-urllib/3.11	2026-11-30 12:24:31.063+00	2026-12-30 12:24:31.063+00	2026-11-30 12:24:34.902+00	\N
6bf5c464-fb87-4c99-9b43-fe971be64015	64d50001-5218-4995-bdd1-acd123da73ec	8e29967f172dd81f83f84165c26e8580f9593bf5d5ef882a4eb98d542925eb68	Python-urllib/3.11	2026-11-30 12:24:31.260999+00	2026-12-30 12:24:31.260999+00	2026-11-30 12:24:35.071+00	\N
\.


--
-- Data for Name: appeals; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.appeals (id, user_id, action_id, statement, status, created_at, decided_by, decided_at) FROM stdin;
\.


--
-- Data for Name: attendance_records; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.attendance_records (event_id, user_id, checked_in_at, mark, marked_at, late_cancelled_at) FROM stdin;
\.


--
-- Data for Name: attendances; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.attendances (event_id, user_id, status, queue_number, joined_at, offer_expires_at) FROM stdin;
0d1ae6d6-4f66-43f6-b676-01d83b45d904	b8003617-4e19-4c89-83ca-bb3d0b121ee1	going	\N	2026-11-30 12:24:28.621+00	\N
035159d9-9783-43fe-ab46-ee175b76cad3	92b099ae-d0a3-4ff5-8314-397efc7913b2	going	\N	2026-11-30 12:24:28.621+00	\N
6f933677-45dd-49ff-a648-74c200ce27fa	e9b91f3a-331f-48f5-ba9a-0d310162a113	going	\N	2026-11-30 12:24:28.621+00	\N
6db1254a-4ca8-43fe-8d56-886609fe1284	3d40b007-2f50-4e27-942c-426ca2cd2e51	going	\N	2026-11-30 12:24:28.621+00	\N
d59753aa-b052-4994-9ee9-3413f08ce6b3	c30119d9-b041-4657-9c95-434e3e1cf68b	going	\N	2026-11-30 12:24:28.621+00	\N
4c0bd2b3-d5e5-4a58-a2d1-44a9015861fd	97028506-9058-45ba-afdd-d9eaf1561757	going	\N	2026-11-30 12:24:28.621+00	\N
92155744-d2b6-4808-b3d6-0e6ccce3171a	5b9e85d1-3f72-4d2d-a10d-d28948f0d4a4	going	\N	2026-11-30 12:24:28.621+00	\N
77511a0c-dde8-463d-9e73-21292d454726	d70d3259-e4e1-4b63-9c66-3cf4d73c4c04	going	\N	2026-11-30 12:24:28.621+00	\N
aa989b04-778e-4c58-95c7-816de2d52edd	87537df7-92ba-4d5a-95e3-5ce7652fe8be	going	\N	2026-11-30 12:24:28.621+00	\N
379b9a3a-56ec-4dc3-a411-b64da63c9e41	c30119d9-b041-4657-9c95-434e3e1cf68b	going	\N	2026-11-30 12:24:28.621+00	\N
5180f4c3-af55-456e-bf95-cb2ecc0ba179	458e51cd-dabc-4735-a526-74f2aff9e21c	going	\N	2026-11-30 12:24:28.621+00	\N
da9f8a23-3bdd-4a32-9b2c-91e47e914c8e	4eb3454a-df54-43eb-b064-01a324990fdf	going	\N	2026-11-30 12:24:28.621+00	\N
f0185960-3f0b-40db-8c00-f877d2efba2f	92b099ae-d0a3-4ff5-8314-397efc7913b2	going	\N	2026-11-30 12:24:28.621+00	\N
a6b24c6f-816d-4b40-b701-9778f865f577	b7043b64-b4e0-4713-9787-42c4681f8152	going	\N	2026-11-30 12:24:28.621+00	\N
eb8d9dce-a94c-4627-98fb-bfb8ca167e2a	fe8fb9f1-c7f8-4ab3-aca3-d502e1389069	going	\N	2026-11-30 12:24:28.621+00	\N
40f1a18c-11ee-4525-9408-c1a560d14aaa	87537df7-92ba-4d5a-95e3-5ce7652fe8be	going	\N	2026-11-30 12:24:28.621+00	\N
e71d761b-c0b8-4457-87bd-959a2fa068d6	d70d3259-e4e1-4b63-9c66-3cf4d73c4c04	going	\N	2026-11-30 12:24:28.621+00	\N
796fd6a0-cfbb-4f0c-b892-40f89805859a	c30119d9-b041-4657-9c95-434e3e1cf68b	going	\N	2026-11-30 12:24:28.621+00	\N
375487ec-f236-4130-af13-faca5113bbc8	d70d3259-e4e1-4b63-9c66-3cf4d73c4c04	going	\N	2026-11-30 12:24:28.621+00	\N
fe141f51-52b9-4067-8ab0-f70da0ddfa6a	b7043b64-b4e0-4713-9787-42c4681f8152	going	\N	2026-11-30 12:24:28.621+00	\N
34081013-c6b1-4777-a5e3-2a6cc9efd4c8	e6f46135-856d-4740-abc1-0ebb0f51d292	going	\N	2026-11-30 12:24:28.621+00	\N
b040b7d8-89f2-4e9a-9585-ee64a2639c46	fd262291-ee7a-4913-bbad-85fdb9069a4d	going	\N	2026-11-30 12:24:28.621+00	\N
0b36d87c-0216-44e6-9138-bf3559d34d6c	d70d3259-e4e1-4b63-9c66-3cf4d73c4c04	going	\N	2026-11-30 12:24:28.621+00	\N
2eef62f6-659e-45d5-9058-ff4a303abbfe	544ac49b-fbd9-4787-ab74-957d4b9b58b5	going	\N	2026-11-30 12:24:28.621+00	\N
ec07e20c-cf30-460d-8651-7425c7d4afdd	fd262291-ee7a-4913-bbad-85fdb9069a4d	going	\N	2026-11-30 12:24:28.621+00	\N
546400b7-fb7a-45ff-bfc9-71285c69e470	5b9e85d1-3f72-4d2d-a10d-d28948f0d4a4	going	\N	2026-11-30 12:24:28.621+00	\N
e4c0aed1-3673-40a1-93eb-773d80856751	ec4882d3-bc8d-4f21-b785-053a0af957c1	going	\N	2026-11-30 12:24:28.621+00	\N
113790e0-38f2-4dad-a4da-b55492cba535	11ecaa10-c2f4-43cb-830f-3f8c6dd122c7	going	\N	2026-11-30 12:24:28.621+00	\N
f1b81e60-b455-4a27-9644-a6aefa694d5f	1813664d-dae8-4d44-9034-2f3bf4be4ab2	going	\N	2026-11-30 12:24:28.621+00	\N
67b5583b-d253-4a01-b46e-71a40e6cbaa9	fd262291-ee7a-4913-bbad-85fdb9069a4d	going	\N	2026-11-30 12:24:28.621+00	\N
b18474aa-c9a9-4801-aa94-6decc53d28b5	30cb169b-8f06-4f54-bc5c-b94667351093	going	\N	2026-11-30 12:24:31.323+00	\N
ee96e681-fd3c-4157-98b8-09df97d2a7d3	b323cd29-6efb-49f9-93c4-0d65f7ab15ab	going	\N	2026-11-30 12:24:31.346999+00	\N
46e5b4d3-5130-43fd-9188-14cd0da4eceb	30cb169b-8f06-4f54-bc5c-b94667351093	going	\N	2026-11-30 12:24:31.378+00	\N
b18474aa-c9a9-4801-aa94-6decc53d28b5	7e70f9a1-6d66-454a-95dc-4ae3bce69c98	going	\N	2026-11-30 12:24:31.41+00	\N
b18474aa-c9a9-4801-aa94-6decc53d28b5	b323cd29-6efb-49f9-93c4-0d65f7ab15ab	going	\N	2026-11-30 12:24:31.443+00	\N
b18474aa-c9a9-4801-aa94-6decc53d28b5	5aebea80-dde7-4e45-a425-caf3f026367a	going	\N	2026-11-30 12:24:31.474999+00	\N
b18474aa-c9a9-4801-aa94-6decc53d28b5	2cd66238-c290-4651-ae20-ca7f8dce6bd8	going	\N	2026-11-30 12:24:31.519+00	\N
ee96e681-fd3c-4157-98b8-09df97d2a7d3	30cb169b-8f06-4f54-bc5c-b94667351093	going	\N	2026-11-30 12:24:31.566+00	\N
ee96e681-fd3c-4157-98b8-09df97d2a7d3	5aebea80-dde7-4e45-a425-caf3f026367a	going	\N	2026-11-30 12:24:31.611+00	\N
ee96e681-fd3c-4157-98b8-09df97d2a7d3	2cd66238-c290-4651-ae20-ca7f8dce6bd8	going	\N	2026-11-30 12:24:31.658999+00	\N
ee96e681-fd3c-4157-98b8-09df97d2a7d3	64d50001-5218-4995-bdd1-acd123da73ec	going	\N	2026-11-30 12:24:31.707+00	\N
46e5b4d3-5130-43fd-9188-14cd0da4eceb	64d50001-5218-4995-bdd1-acd123da73ec	going	\N	2026-11-30 12:24:31.754+00	\N
\.


--
-- Data for Name: audit_log; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.audit_log (id, at, actor_id, actor, action, target_type, target_id, reason, details, seq) FROM stdin;
\.


--
-- Data for Name: blocks; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.blocks (blocker_id, blocked_id, created_at) FROM stdin;
2cd66238-c290-4651-ae20-ca7f8dce6bd8	64d50001-5218-4995-bdd1-acd123da73ec	2026-11-30 12:24:32.336999+00
\.


--
-- Data for Name: card_payments; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.card_payments (session_id, event_id, user_id, stripe_account_id, amount, currency, status, payment_intent_id, created_at) FROM stdin;
\.


--
-- Data for Name: card_refunds; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.card_refunds (refund_id, event_id, user_id, payment_intent_id, amount, recorded_by, created_at, id, status) FROM stdin;
\.


--
-- Data for Name: chat_instances; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.chat_instances (instance_id, seen_at) FROM stdin;
\.


--
-- Data for Name: chat_messages; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.chat_messages (id, room_id, seq, sender_id, client_id, body, created_at, attachment_id, attachment_variants, attachment_width, attachment_height, reply_to_seq, mentions, change_seq, edited_at, deleted_at, poll) FROM stdin;
8cdd326f-f8b8-4f5e-b2db-a63100353f3f	b18474aa-c9a9-4801-aa94-6decc53d28b5	3	b323cd29-6efb-49f9-93c4-0d65f7ab15ab	f3	football message 3 from Cleo	2026-11-30 12:24:31.974999+00	\N	\N	\N	\N	\N	\N	0	\N	\N	f
72dbf8be-9533-45d9-a6cd-001f206f37ec	b18474aa-c9a9-4801-aa94-6decc53d28b5	5	5aebea80-dde7-4e45-a425-caf3f026367a	f5	football message 5 from Dev	2026-11-30 12:24:32.017+00	\N	\N	\N	\N	\N	\N	0	\N	\N	f
0557c818-13cd-4404-ba8c-7b24ec422047	b18474aa-c9a9-4801-aa94-6decc53d28b5	6	30cb169b-8f06-4f54-bc5c-b94667351093	f6	football message 6 from Ada	2026-11-30 12:24:32.043+00	\N	\N	\N	\N	\N	\N	0	\N	\N	f
240a4fbc-3f77-4502-805e-4979487336f7	b18474aa-c9a9-4801-aa94-6decc53d28b5	7	2cd66238-c290-4651-ae20-ca7f8dce6bd8	f7	football message 7 from Eli	2026-11-30 12:24:32.059+00	\N	\N	\N	\N	\N	\N	0	\N	\N	f
0ab51d1a-ebaa-4afa-a8be-a868217df744	b18474aa-c9a9-4801-aa94-6decc53d28b5	2	7e70f9a1-6d66-454a-95dc-4ae3bce69c98	f2	football message 2 from Bo, edited	2026-11-30 12:24:31.931999+00	\N	\N	\N	\N	\N	\N	1	2026-11-30 12:24:32.083+00	\N	f
e5eb57e7-2901-4a9d-abc4-f57b1083bf05	b18474aa-c9a9-4801-aa94-6decc53d28b5	4	7e70f9a1-6d66-454a-95dc-4ae3bce69c98	f4		2026-11-30 12:24:31.997+00	\N	\N	\N	\N	\N	\N	2	\N	2026-11-30 12:24:32.121+00	f
1bf07117-ad8e-4139-b58e-8fe2c980f36c	b18474aa-c9a9-4801-aa94-6decc53d28b5	1	30cb169b-8f06-4f54-bc5c-b94667351093	f1	football message 1 from Ada	2026-11-30 12:24:31.887+00	\N	\N	\N	\N	\N	\N	3	\N	\N	f
0e966d30-ccee-43ee-81e7-c5345771f2d6	1da3c980-7f30-4838-b652-b6e600fd0d6e	1	30cb169b-8f06-4f54-bc5c-b94667351093	p1	private 1	2026-11-30 12:24:32.260999+00	\N	\N	\N	\N	\N	\N	0	\N	\N	f
8157ef62-df92-4970-a240-cd42b18db24e	1da3c980-7f30-4838-b652-b6e600fd0d6e	2	7e70f9a1-6d66-454a-95dc-4ae3bce69c98	p2	private 2	2026-11-30 12:24:32.283+00	\N	\N	\N	\N	\N	\N	0	\N	\N	f
c6ee00fb-53b7-41a9-9698-571fb047fff9	1da3c980-7f30-4838-b652-b6e600fd0d6e	3	30cb169b-8f06-4f54-bc5c-b94667351093	p3	private 3	2026-11-30 12:24:32.313999+00	\N	\N	\N	\N	\N	\N	0	\N	\N	f
\.


--
-- Data for Name: chat_poll_options; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.chat_poll_options (room_id, seq, "position", label, starts_at, ends_at) FROM stdin;
\.


--
-- Data for Name: chat_poll_votes; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.chat_poll_votes (room_id, seq, "position", user_id, created_at) FROM stdin;
\.


--
-- Data for Name: chat_polls; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.chat_polls (room_id, seq, kind, multiple, anonymous, one_per_option, closes_at, closed_at, reminded_at, made_at, made_event_id, made_series_id) FROM stdin;
\.


--
-- Data for Name: chat_presence; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.chat_presence (instance_id, user_id, room_id, seen_at) FROM stdin;
\.


--
-- Data for Name: chat_reactions; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.chat_reactions (room_id, seq, user_id, emoji, created_at) FROM stdin;
b18474aa-c9a9-4801-aa94-6decc53d28b5	1	b323cd29-6efb-49f9-93c4-0d65f7ab15ab	👍	2026-11-30 12:24:32.155999+00
\.


--
-- Data for Name: chat_reads; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.chat_reads (room_id, user_id, last_read_seq, updated_at, muted_until) FROM stdin;
b18474aa-c9a9-4801-aa94-6decc53d28b5	7e70f9a1-6d66-454a-95dc-4ae3bce69c98	5	2026-11-30 12:24:32.19+00	\N
b18474aa-c9a9-4801-aa94-6decc53d28b5	5aebea80-dde7-4e45-a425-caf3f026367a	0	2026-11-30 12:24:32.213+00	9999-12-31 23:59:59+00
\.


--
-- Data for Name: conversations; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.conversations (room_id, user_low, user_high, created_by, state, requested_by, created_at) FROM stdin;
1da3c980-7f30-4838-b652-b6e600fd0d6e	30cb169b-8f06-4f54-bc5c-b94667351093	7e70f9a1-6d66-454a-95dc-4ae3bce69c98	30cb169b-8f06-4f54-bc5c-b94667351093	open	\N	2026-11-30 12:24:32.243+00
\.


--
-- Data for Name: data_exports; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.data_exports (id, user_id, requested_by, status, requested_at, ready_at, expires_at, size, archive) FROM stdin;
\.


--
-- Data for Name: devices; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.devices (token, user_id, platform, created_at, session_id, id, environment, p256dh, auth) FROM stdin;
\.


--
-- Data for Name: email_codes; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.email_codes (user_id, purpose, digest, tries, expires_at, created_at, request, known_place) FROM stdin;
\.


--
-- Data for Name: event_bans; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.event_bans (event_id, user_id, banned_at) FROM stdin;
\.


--
-- Data for Name: event_maybes; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.event_maybes (event_id, user_id, answered_at) FROM stdin;
\.


--
-- Data for Name: events; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.events (id, organiser_id, sport_slug, title, description, address, lat, lon, starts_at, ends_at, capacity, status, going_count, waitlist_count, waitlist_counter, version, created_at, updated_at, cover_id, cover_variants, time_zone, reminders, reminded_at, series_id, occurrence_date, answer_deadline, record_last_games, record_max_no_shows, min_players, decide_minutes, game_on_at, offered_count, level_min_half, level_max_half, audience, group_id, members_only, timed_at, competitive, price) FROM stdin;
0d1ae6d6-4f66-43f6-b676-01d83b45d904	b8003617-4e19-4c89-83ca-bb3d0b121ee1	running	Beginners welcome: Running	Demo event, seed 7.	\N	41.84158646620403	-87.49187658685034	2026-12-01 09:45:00+00	2026-12-01 11:15:00+00	11	active	0	0	0	1	2026-11-30 12:24:28.621+00	2026-11-30 12:24:28.621+00	\N	\N	UTC	[1440,120]	\N	\N	\N	\N	\N	\N	\N	120	\N	0	8	11	mixed	\N	f	\N	f	\N
035159d9-9783-43fe-ab46-ee175b76cad3	92b099ae-d0a3-4ff5-8314-397efc7913b2	football	Tournament practice: Football	Demo event, seed 7.	\N	34.06305829292508	-118.15879841140419	2026-12-24 01:15:00+00	2026-12-24 03:15:00+00	\N	active	0	0	0	1	2026-11-30 12:24:28.621+00	2026-11-30 12:24:28.621+00	\N	\N	UTC	[1440,120]	\N	\N	\N	\N	\N	\N	\N	120	\N	0	\N	\N	anyone	\N	f	\N	f	\N
6f933677-45dd-49ff-a648-74c200ce27fa	e9b91f3a-331f-48f5-ba9a-0d310162a113	football	Sunday meetup: Football	Demo event, seed 7.	\N	40.6248479148606	-4.116477267688527	2026-12-07 20:30:00+00	2026-12-07 23:00:00+00	\N	active	0	0	0	1	2026-11-30 12:24:28.621+00	2026-11-30 12:24:28.621+00	\N	\N	UTC	[1440,120]	\N	\N	\N	\N	\N	\N	\N	120	\N	0	\N	\N	mixed	\N	f	\N	f	\N
6db1254a-4ca8-43fe-8d56-886609fe1284	3d40b007-2f50-4e27-942c-426ca2cd2e51	swimming	Weekly match: Swimming	Demo event, seed 7.	\N	52.30790880644896	21.01137736389109	2026-12-01 22:00:00+00	2026-12-02 00:30:00+00	10	active	0	0	0	1	2026-11-30 12:24:28.621+00	2026-11-30 12:24:28.621+00	\N	\N	UTC	[1440,120]	\N	\N	\N	\N	\N	\N	\N	120	\N	0	\N	\N	anyone	\N	f	\N	f	\N
d59753aa-b052-4994-9ee9-3413f08ce6b3	c30119d9-b041-4657-9c95-434e3e1cf68b	squash	Beginners welcome: Squash	Demo event, seed 7.	\N	-33.668360144989414	18.08071711552369	2026-12-25 01:30:00+00	2026-12-25 03:30:00+00	\N	active	0	0	0	1	2026-11-30 12:24:28.621+00	2026-11-30 12:24:28.621+00	\N	\N	UTC	[1440,120]	\N	\N	\N	\N	\N	\N	\N	120	\N	0	\N	\N	women	\N	f	\N	f	\N
4c0bd2b3-d5e5-4a58-a2d1-44a9015861fd	97028506-9058-45ba-afdd-d9eaf1561757	football	Friendly game: Football	Demo event, seed 7.	\N	12.94130643595382	77.79464133383202	2026-12-07 10:30:00+00	2026-12-07 12:00:00+00	11	active	0	0	0	1	2026-11-30 12:24:28.621+00	2026-11-30 12:24:28.621+00	\N	\N	UTC	[1440,120]	\N	\N	\N	\N	\N	\N	\N	120	\N	0	\N	\N	anyone	\N	f	\N	f	\N
92155744-d2b6-4808-b3d6-0e6ccce3171a	5b9e85d1-3f72-4d2d-a10d-d28948f0d4a4	hockey	Sunday meetup: Field hockey	Demo event, seed 7.	\N	-33.89534399217756	151.1467293373013	2026-12-07 18:15:00+00	2026-12-07 21:15:00+00	12	active	0	0	0	1	2026-11-30 12:24:28.621+00	2026-11-30 12:24:28.621+00	\N	\N	UTC	[1440,120]	\N	\N	\N	\N	\N	\N	\N	120	\N	0	1	5	anyone	\N	f	\N	f	\N
77511a0c-dde8-463d-9e73-21292d454726	d70d3259-e4e1-4b63-9c66-3cf4d73c4c04	basketball	Sunday meetup: Basketball	Demo event, seed 7.	\N	-33.3672686919624	-70.69728242306813	2026-12-19 10:15:00+00	2026-12-19 11:15:00+00	\N	active	0	0	0	1	2026-11-30 12:24:28.621+00	2026-11-30 12:24:28.621+00	\N	\N	UTC	[1440,120]	\N	\N	\N	\N	\N	\N	\N	120	\N	0	\N	\N	anyone	\N	f	\N	f	\N
aa989b04-778e-4c58-95c7-816de2d52edd	87537df7-92ba-4d5a-95e3-5ce7652fe8be	ice-hockey	Weekly match: Ice hockey	Demo event, seed 7.	\N	69.56241186525052	18.562273472069148	2026-12-13 22:15:00+00	2026-12-14 00:45:00+00	38	active	0	0	0	1	2026-11-30 12:24:28.621+00	2026-11-30 12:24:28.621+00	\N	\N	UTC	[1440,120]	\N	\N	\N	\N	\N	\N	\N	120	\N	0	\N	\N	anyone	\N	f	\N	f	\N
379b9a3a-56ec-4dc3-a411-b64da63c9e41	c30119d9-b041-4657-9c95-434e3e1cf68b	basketball	Training run: Basketball	Demo event, seed 7.	\N	6.796638936780554	3.432897543812664	2026-12-20 06:30:00+00	2026-12-20 09:30:00+00	29	active	0	0	0	1	2026-11-30 12:24:28.621+00	2026-11-30 12:24:28.621+00	\N	\N	UTC	[1440,120]	\N	\N	\N	\N	\N	\N	\N	120	\N	0	10	14	mixed	\N	f	\N	f	\N
5180f4c3-af55-456e-bf95-cb2ecc0ba179	458e51cd-dabc-4735-a526-74f2aff9e21c	tennis	Sunday meetup: Tennis	Demo event, seed 7.	\N	-34.24233672865722	18.800462290069945	2026-12-09 08:45:00+00	2026-12-09 10:45:00+00	33	active	0	0	0	1	2026-11-30 12:24:28.621+00	2026-11-30 12:24:28.621+00	\N	\N	UTC	[1440,120]	\N	\N	\N	\N	\N	\N	\N	120	\N	0	7	10	anyone	\N	f	\N	f	\N
da9f8a23-3bdd-4a32-9b2c-91e47e914c8e	4eb3454a-df54-43eb-b064-01a324990fdf	rowing	Friendly game: Rowing	Demo event, seed 7.	\N	-34.421194648315506	-58.340738178118634	2026-12-11 02:45:00+00	2026-12-11 05:45:00+00	\N	active	0	0	0	1	2026-11-30 12:24:28.621+00	2026-11-30 12:24:28.621+00	\N	\N	UTC	[1440,120]	\N	\N	\N	\N	\N	\N	\N	120	\N	0	1	3	anyone	\N	f	\N	f	\N
f0185960-3f0b-40db-8c00-f877d2efba2f	92b099ae-d0a3-4ff5-8314-397efc7913b2	cross-country-skiing	Morning session: Cross-country skiing	Demo event, seed 7.	\N	-36.844292791825765	174.71665521803638	2026-12-28 02:15:00+00	2026-12-28 03:15:00+00	15	active	0	0	0	1	2026-11-30 12:24:28.621+00	2026-11-30 12:24:28.621+00	\N	\N	UTC	[1440,120]	\N	\N	\N	\N	\N	\N	\N	120	\N	0	1	3	anyone	\N	f	\N	f	\N
a6b24c6f-816d-4b40-b701-9778f865f577	b7043b64-b4e0-4713-9787-42c4681f8152	softball	Beginners welcome: Softball	Demo event, seed 7.	\N	37.83817844157599	-122.30820530542363	2026-12-25 05:00:00+00	2026-12-25 08:00:00+00	\N	active	0	0	0	1	2026-11-30 12:24:28.621+00	2026-11-30 12:24:28.621+00	\N	\N	UTC	[1440,120]	\N	\N	\N	\N	\N	\N	\N	120	\N	0	9	14	anyone	\N	f	\N	f	\N
eb8d9dce-a94c-4627-98fb-bfb8ca167e2a	fe8fb9f1-c7f8-4ab3-aca3-d502e1389069	running	Sunday meetup: Running	Demo event, seed 7.	\N	51.44541776748836	0.07570065739228732	2026-12-20 09:30:00+00	2026-12-20 11:00:00+00	24	active	0	0	0	1	2026-11-30 12:24:28.621+00	2026-11-30 12:24:28.621+00	\N	\N	UTC	[1440,120]	\N	\N	\N	\N	\N	\N	\N	120	\N	0	\N	\N	mixed	\N	f	\N	f	\N
40f1a18c-11ee-4525-9408-c1a560d14aaa	87537df7-92ba-4d5a-95e3-5ce7652fe8be	fitness	Friendly game: Fitness	Demo event, seed 7.	\N	12.878249717728881	77.55871598493538	2026-12-21 13:30:00+00	2026-12-21 15:30:00+00	25	active	0	0	0	1	2026-11-30 12:24:28.621+00	2026-11-30 12:24:28.621+00	\N	\N	UTC	[1440,120]	\N	\N	\N	\N	\N	\N	\N	120	\N	0	\N	\N	mixed	\N	f	\N	f	\N
e71d761b-c0b8-4457-87bd-959a2fa068d6	d70d3259-e4e1-4b63-9c66-3cf4d73c4c04	tennis	Morning session: Tennis	Demo event, seed 7.	\N	6.405516446464254	3.3427538434860447	2026-12-21 07:15:00+00	2026-12-21 10:15:00+00	\N	active	0	0	0	1	2026-11-30 12:24:28.621+00	2026-11-30 12:24:28.621+00	\N	\N	UTC	[1440,120]	\N	\N	\N	\N	\N	\N	\N	120	\N	0	5	8	mixed	\N	f	\N	f	\N
796fd6a0-cfbb-4f0c-b892-40f89805859a	c30119d9-b041-4657-9c95-434e3e1cf68b	cycling	After-work game: Cycling	Demo event, seed 7.	\N	19.119971055498702	72.9097453887572	2026-12-09 01:00:00+00	2026-12-09 04:00:00+00	33	active	0	0	0	1	2026-11-30 12:24:28.621+00	2026-11-30 12:24:28.621+00	\N	\N	UTC	[1440,120]	\N	\N	\N	\N	\N	\N	\N	120	\N	0	9	13	anyone	\N	f	\N	f	\N
375487ec-f236-4130-af13-faca5113bbc8	d70d3259-e4e1-4b63-9c66-3cf4d73c4c04	football	Sunday meetup: Football	Demo event, seed 7.	\N	41.84912160566613	-87.42569872314115	2026-12-26 08:00:00+00	2026-12-26 10:30:00+00	25	active	0	0	0	1	2026-11-30 12:24:28.621+00	2026-11-30 12:24:28.621+00	\N	\N	UTC	[1440,120]	\N	\N	\N	\N	\N	\N	\N	120	\N	0	8	13	anyone	\N	f	\N	f	\N
fe141f51-52b9-4067-8ab0-f70da0ddfa6a	b7043b64-b4e0-4713-9787-42c4681f8152	fitness	Tournament practice: Fitness	Demo event, seed 7.	\N	52.26358493463044	21.11288884339977	2026-12-10 20:45:00+00	2026-12-10 23:15:00+00	\N	active	0	0	0	1	2026-11-30 12:24:28.621+00	2026-11-30 12:24:28.621+00	\N	\N	UTC	[1440,120]	\N	\N	\N	\N	\N	\N	\N	120	\N	0	1	7	anyone	\N	f	\N	f	\N
34081013-c6b1-4777-a5e3-2a6cc9efd4c8	e6f46135-856d-4740-abc1-0ebb0f51d292	cycling	Tournament practice: Cycling	Demo event, seed 7.	\N	40.945811463176625	28.983332844881016	2026-12-21 14:00:00+00	2026-12-21 15:00:00+00	10	active	0	0	0	1	2026-11-30 12:24:28.621+00	2026-11-30 12:24:28.621+00	\N	\N	UTC	[1440,120]	\N	\N	\N	\N	\N	\N	\N	120	\N	0	\N	\N	anyone	\N	f	\N	f	\N
b040b7d8-89f2-4e9a-9585-ee64a2639c46	fd262291-ee7a-4913-bbad-85fdb9069a4d	football	After-work game: Football	Demo event, seed 7.	\N	40.58172925809487	-3.734977331661228	2026-12-10 01:45:00+00	2026-12-10 03:45:00+00	30	active	0	0	0	1	2026-11-30 12:24:28.621+00	2026-11-30 12:24:28.621+00	\N	\N	UTC	[1440,120]	\N	\N	\N	\N	\N	\N	\N	120	\N	0	2	7	anyone	\N	f	\N	f	\N
0b36d87c-0216-44e6-9138-bf3559d34d6c	d70d3259-e4e1-4b63-9c66-3cf4d73c4c04	football	Friendly game: Football	Demo event, seed 7.	\N	21.518933683532172	-157.88369393720797	2026-12-24 23:00:00+00	2026-12-25 01:00:00+00	36	active	0	0	0	1	2026-11-30 12:24:28.621+00	2026-11-30 12:24:28.621+00	\N	\N	UTC	[1440,120]	\N	\N	\N	\N	\N	\N	\N	120	\N	0	7	12	mixed	\N	f	\N	f	\N
2eef62f6-659e-45d5-9058-ff4a303abbfe	544ac49b-fbd9-4787-ab74-957d4b9b58b5	hiking	After-work game: Hiking	Demo event, seed 7.	\N	40.461383233109146	-73.94384975384955	2026-12-12 12:00:00+00	2026-12-12 13:00:00+00	30	active	0	0	0	1	2026-11-30 12:24:28.621+00	2026-11-30 12:24:28.621+00	\N	\N	UTC	[1440,120]	\N	\N	\N	\N	\N	\N	\N	120	\N	0	\N	\N	mixed	\N	f	\N	f	\N
ec07e20c-cf30-460d-8651-7425c7d4afdd	fd262291-ee7a-4913-bbad-85fdb9069a4d	squash	Training run: Squash	Demo event, seed 7.	\N	-33.730431258284554	-70.6066244233016	2026-12-01 18:30:00+00	2026-12-01 20:30:00+00	30	active	0	0	0	1	2026-11-30 12:24:28.621+00	2026-11-30 12:24:28.621+00	\N	\N	UTC	[1440,120]	\N	\N	\N	\N	\N	\N	\N	120	\N	0	8	12	anyone	\N	f	\N	f	\N
546400b7-fb7a-45ff-bfc9-71285c69e470	5b9e85d1-3f72-4d2d-a10d-d28948f0d4a4	triathlon	Morning session: Triathlon	Demo event, seed 7.	\N	-6.119795172902692	106.93650575020918	2026-12-03 02:45:00+00	2026-12-03 05:45:00+00	\N	active	0	0	0	1	2026-11-30 12:24:28.621+00	2026-11-30 12:24:28.621+00	\N	\N	UTC	[1440,120]	\N	\N	\N	\N	\N	\N	\N	120	\N	0	4	7	mixed	\N	f	\N	f	\N
e4c0aed1-3673-40a1-93eb-773d80856751	ec4882d3-bc8d-4f21-b785-053a0af957c1	football	After-work game: Football	Demo event, seed 7.	\N	-33.884543321912425	18.49565511841472	2026-12-20 14:15:00+00	2026-12-20 15:15:00+00	\N	active	0	0	0	1	2026-11-30 12:24:28.621+00	2026-11-30 12:24:28.621+00	\N	\N	UTC	[1440,120]	\N	\N	\N	\N	\N	\N	\N	120	\N	0	\N	\N	anyone	\N	f	\N	f	\N
113790e0-38f2-4dad-a4da-b55492cba535	11ecaa10-c2f4-43cb-830f-3f8c6dd122c7	football	Friendly game: Football	Demo event, seed 7.	\N	-23.642038222914856	-46.6071900426306	2026-12-28 10:30:00+00	2026-12-28 12:30:00+00	\N	active	0	0	0	1	2026-11-30 12:24:28.621+00	2026-11-30 12:24:28.621+00	\N	\N	UTC	[1440,120]	\N	\N	\N	\N	\N	\N	\N	120	\N	0	\N	\N	anyone	\N	f	\N	f	\N
f1b81e60-b455-4a27-9644-a6aefa694d5f	1813664d-dae8-4d44-9034-2f3bf4be4ab2	padel	Tournament practice: Padel	Demo event, seed 7.	\N	-11.822143442054557	-76.79158471220929	2026-12-13 08:45:00+00	2026-12-13 11:15:00+00	35	active	0	0	0	1	2026-11-30 12:24:28.621+00	2026-11-30 12:24:28.621+00	\N	\N	UTC	[1440,120]	\N	\N	\N	\N	\N	\N	\N	120	\N	0	10	14	men	\N	f	\N	f	\N
67b5583b-d253-4a01-b46e-71a40e6cbaa9	fd262291-ee7a-4913-bbad-85fdb9069a4d	beach-volleyball	After-work game: Beach volleyball	Demo event, seed 7.	\N	-18.433995380892068	178.4647243389831	2026-12-14 19:45:00+00	2026-12-14 22:15:00+00	\N	active	0	0	0	1	2026-11-30 12:24:28.621+00	2026-11-30 12:24:28.621+00	\N	\N	UTC	[1440,120]	\N	\N	\N	\N	\N	\N	\N	120	\N	0	2	7	anyone	\N	f	\N	f	\N
ee96e681-fd3c-4157-98b8-09df97d2a7d3	b323cd29-6efb-49f9-93c4-0d65f7ab15ab	padel	Padel doubles	Padel doubles: bring water	\N	55.68	12.59	2026-12-05 12:24:31+00	2026-12-05 14:24:31+00	4	active	4	0	0	5	2026-11-30 12:24:31.346999+00	2026-11-30 12:24:31.707+00	\N	\N	UTC	[1440,120]	\N	\N	\N	\N	\N	\N	\N	120	\N	0	\N	\N	anyone	\N	f	\N	f	\N
b18474aa-c9a9-4801-aa94-6decc53d28b5	30cb169b-8f06-4f54-bc5c-b94667351093	football	Five-a-side at Fælled	Five-a-side at Fælled: bring water	\N	55.7	12.57	2026-12-03 12:24:31+00	2026-12-03 14:24:31+00	10	active	4	0	0	5	2026-11-30 12:24:31.323+00	2026-11-30 12:24:31.519+00	\N	\N	UTC	[1440,120]	\N	\N	\N	\N	\N	\N	\N	120	\N	0	\N	\N	anyone	\N	f	\N	f	\N
46e5b4d3-5130-43fd-9188-14cd0da4eceb	30cb169b-8f06-4f54-bc5c-b94667351093	running	Sunday run	Sunday run: bring water	\N	55.67	12.55	2026-12-09 12:24:31+00	2026-12-09 14:24:31+00	\N	active	1	0	0	2	2026-11-30 12:24:31.378+00	2026-11-30 12:24:31.754+00	\N	\N	UTC	[1440,120]	\N	\N	\N	\N	\N	\N	\N	120	\N	0	\N	\N	anyone	\N	f	\N	f	\N
\.


--
-- Data for Name: game_results; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.game_results (event_id, scores, entered_by, entered_team, entered_at, status, answered_by, answered_at, applied_at) FROM stdin;
\.


--
-- Data for Name: group_bans; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.group_bans (group_id, user_id, banned_by, banned_at) FROM stdin;
\.


--
-- Data for Name: group_members; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.group_members (group_id, user_id, role, joined_at, muted) FROM stdin;
\.


--
-- Data for Name: group_requests; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.group_requests (group_id, user_id, message, created_at) FROM stdin;
\.


--
-- Data for Name: group_sports; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.group_sports (group_id, sport_slug) FROM stdin;
\.


--
-- Data for Name: identities; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.identities (provider, subject, user_id, email, created_at) FROM stdin;
\.


--
-- Data for Name: invitations; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.invitations (id, event_id, inviter_id, invitee_id, status, created_at, responded_at, hidden) FROM stdin;
af1a99a9-b07a-4776-8b5b-a8a8b45f3b25	46e5b4d3-5130-43fd-9188-14cd0da4eceb	30cb169b-8f06-4f54-bc5c-b94667351093	7e70f9a1-6d66-454a-95dc-4ae3bce69c98	pending	2026-11-30 12:24:31.806+00	\N	f
8ed496ae-b2bf-476f-b6e5-e274afd48235	46e5b4d3-5130-43fd-9188-14cd0da4eceb	30cb169b-8f06-4f54-bc5c-b94667351093	b323cd29-6efb-49f9-93c4-0d65f7ab15ab	pending	2026-11-30 12:24:31.806+00	\N	f
\.


--
-- Data for Name: jobs; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.jobs (id, kind, payload, dedupe_key, state, attempts, run_at, lease_until, locked_by, last_error, enqueued_at, finished_at, subject) FROM stdin;
a66a5331-cdb4-4b13-a5a3-b283b1800bcb	reminder_due	{"event_id":"b18474aa-c9a9-4801-aa94-6decc53d28b5","kind":"reminder_due","minutes":1440,"starts_at":1796300671000}	reminder:b18474aa-c9a9-4801-aa94-6decc53d28b5:1440:1796300671000	queued	0	2026-12-02 12:24:31.009+00	\N	\N	\N	2026-11-30 12:24:31.332+00	\N	event:b18474aa-c9a9-4801-aa94-6decc53d28b5
9069e0c1-1997-4185-8d40-0ad24e40e3d5	reminder_due	{"event_id":"b18474aa-c9a9-4801-aa94-6decc53d28b5","kind":"reminder_due","minutes":120,"starts_at":1796300671000}	reminder:b18474aa-c9a9-4801-aa94-6decc53d28b5:120:1796300671000	queued	0	2026-12-03 10:24:31.011+00	\N	\N	\N	2026-11-30 12:24:31.334+00	\N	event:b18474aa-c9a9-4801-aa94-6decc53d28b5
e8dce2e7-2328-44ab-9236-60c7e978d604	reminder_due	{"event_id":"ee96e681-fd3c-4157-98b8-09df97d2a7d3","kind":"reminder_due","minutes":1440,"starts_at":1796473471000}	reminder:ee96e681-fd3c-4157-98b8-09df97d2a7d3:1440:1796473471000	queued	0	2026-12-04 12:24:31.012+00	\N	\N	\N	2026-11-30 12:24:31.359+00	\N	event:ee96e681-fd3c-4157-98b8-09df97d2a7d3
689d4dbc-1059-4c46-8dce-6e59e72be21f	reminder_due	{"event_id":"ee96e681-fd3c-4157-98b8-09df97d2a7d3","kind":"reminder_due","minutes":120,"starts_at":1796473471000}	reminder:ee96e681-fd3c-4157-98b8-09df97d2a7d3:120:1796473471000	queued	0	2026-12-05 10:24:31.015+00	\N	\N	\N	2026-11-30 12:24:31.362+00	\N	event:ee96e681-fd3c-4157-98b8-09df97d2a7d3
dc7433f9-d9fc-4408-bad6-279b143135ed	reminder_due	{"event_id":"46e5b4d3-5130-43fd-9188-14cd0da4eceb","kind":"reminder_due","minutes":1440,"starts_at":1796819071000}	reminder:46e5b4d3-5130-43fd-9188-14cd0da4eceb:1440:1796819071000	queued	0	2026-12-08 12:24:31.013+00	\N	\N	\N	2026-11-30 12:24:31.391+00	\N	event:46e5b4d3-5130-43fd-9188-14cd0da4eceb
6d7661d0-42b9-4f08-9f59-67d684490181	reminder_due	{"event_id":"46e5b4d3-5130-43fd-9188-14cd0da4eceb","kind":"reminder_due","minutes":120,"starts_at":1796819071000}	reminder:46e5b4d3-5130-43fd-9188-14cd0da4eceb:120:1796819071000	queued	0	2026-12-09 10:24:31.017+00	\N	\N	\N	2026-11-30 12:24:31.395+00	\N	event:46e5b4d3-5130-43fd-9188-14cd0da4eceb
4f547c62-beca-4c74-8286-9d123af27da6	invitation	{"body":"Ada invites you to Sunday run.","data":{"event_id":"46e5b4d3-5130-43fd-9188-14cd0da4eceb","event_title":"Sunday run","invitation_id":"af1a99a9-b07a-4776-8b5b-a8a8b45f3b25","inviter":{"id":"30cb169b-8f06-4f54-bc5c-b94667351093","name":"Ada"},"starts_at":"2026-12-09T12:24:31.000Z"},"kind":"invitation","title":"Invitation: Sunday run","user_id":"7E70F9A1-6D66-454A-95DC-4AE3BCE69C98"}	invitation:af1a99a9-b07a-4776-8b5b-a8a8b45f3b25	done	1	2026-11-30 12:24:31.842+00	\N	d5c63698-1	\N	2026-11-30 12:24:31.842+00	2026-11-30 12:24:31.918+00	\N
234307ab-8d98-433c-bd5c-08def24796d0	invitation	{"body":"Ada invites you to Sunday run.","data":{"event_id":"46e5b4d3-5130-43fd-9188-14cd0da4eceb","event_title":"Sunday run","invitation_id":"8ed496ae-b2bf-476f-b6e5-e274afd48235","inviter":{"id":"30cb169b-8f06-4f54-bc5c-b94667351093","name":"Ada"},"starts_at":"2026-12-09T12:24:31.000Z"},"kind":"invitation","title":"Invitation: Sunday run","user_id":"B323CD29-6EFB-49F9-93C4-0D65F7AB15AB"}	invitation:8ed496ae-b2bf-476f-b6e5-e274afd48235	done	1	2026-11-30 12:24:31.842+00	\N	d5c63698-1	\N	2026-11-30 12:24:31.842+00	2026-11-30 12:24:31.918+00	\N
daec3dd6-1d5a-412b-a6a7-414c26e4f84b	chat_message	{"body":"Bo: football message 2 from Bo, edited","collapse_key":"chat:b18474aa-c9a9-4801-aa94-6decc53d28b5","data":{"event_id":"b18474aa-c9a9-4801-aa94-6decc53d28b5","event_title":"Five-a-side at Fælled","room_id":"b18474aa-c9a9-4801-aa94-6decc53d28b5","sender":{"id":"7e70f9a1-6d66-454a-95dc-4ae3bce69c98","name":"Bo"},"seq":2},"kind":"chat_message","title":"Five-a-side at Fælled","user_id":"30CB169B-8F06-4F54-BC5C-B94667351093"}	chat_message:b18474aa-c9a9-4801-aa94-6decc53d28b5:30cb169b-8f06-4f54-bc5c-b94667351093	done	1	2026-11-30 12:24:33.948+00	\N	d5c63698-0	\N	2026-11-30 12:24:31.948+00	2026-11-30 12:24:34.402+00	\N
2958c9d1-c12b-486a-af6e-d61200d9c2b9	chat_message	{"body":"Ada: football message 1 from Ada","collapse_key":"chat:b18474aa-c9a9-4801-aa94-6decc53d28b5","data":{"event_id":"b18474aa-c9a9-4801-aa94-6decc53d28b5","event_title":"Five-a-side at Fælled","room_id":"b18474aa-c9a9-4801-aa94-6decc53d28b5","sender":{"id":"30cb169b-8f06-4f54-bc5c-b94667351093","name":"Ada"},"seq":1},"kind":"chat_message","title":"Five-a-side at Fælled","user_id":"B323CD29-6EFB-49F9-93C4-0D65F7AB15AB"}	chat_message:b18474aa-c9a9-4801-aa94-6decc53d28b5:b323cd29-6efb-49f9-93c4-0d65f7ab15ab	done	1	2026-11-30 12:24:33.913+00	\N	d5c63698-0	\N	2026-11-30 12:24:31.913+00	2026-11-30 12:24:34.402+00	\N
541f49ce-283a-45e9-b27d-71c35fd7cfef	chat_message	{"body":"Ada: football message 1 from Ada","collapse_key":"chat:b18474aa-c9a9-4801-aa94-6decc53d28b5","data":{"event_id":"b18474aa-c9a9-4801-aa94-6decc53d28b5","event_title":"Five-a-side at Fælled","room_id":"b18474aa-c9a9-4801-aa94-6decc53d28b5","sender":{"id":"30cb169b-8f06-4f54-bc5c-b94667351093","name":"Ada"},"seq":1},"kind":"chat_message","title":"Five-a-side at Fælled","user_id":"2CD66238-C290-4651-AE20-CA7F8DCE6BD8"}	chat_message:b18474aa-c9a9-4801-aa94-6decc53d28b5:2cd66238-c290-4651-ae20-ca7f8dce6bd8	done	1	2026-11-30 12:24:33.91+00	\N	d5c63698-0	\N	2026-11-30 12:24:31.91+00	2026-11-30 12:24:34.402+00	\N
7d8af958-18d6-41b9-a6ac-ceb33ff81edd	chat_message	{"body":"Ada: private 1","collapse_key":"chat:1da3c980-7f30-4838-b652-b6e600fd0d6e","data":{"room_id":"1da3c980-7f30-4838-b652-b6e600fd0d6e","sender":{"id":"30cb169b-8f06-4f54-bc5c-b94667351093","name":"Ada"},"seq":1},"kind":"chat_message","title":"Ada","user_id":"7E70F9A1-6D66-454A-95DC-4AE3BCE69C98"}	chat_message:1da3c980-7f30-4838-b652-b6e600fd0d6e:7e70f9a1-6d66-454a-95dc-4ae3bce69c98	done	1	2026-11-30 12:24:34.27+00	\N	d5c63698-0	\N	2026-11-30 12:24:32.27+00	2026-11-30 12:24:34.402+00	\N
1c7815af-4824-47a4-953e-f44143b91256	chat_message	{"body":"Ada: football message 1 from Ada","collapse_key":"chat:b18474aa-c9a9-4801-aa94-6decc53d28b5","data":{"event_id":"b18474aa-c9a9-4801-aa94-6decc53d28b5","event_title":"Five-a-side at Fælled","room_id":"b18474aa-c9a9-4801-aa94-6decc53d28b5","sender":{"id":"30cb169b-8f06-4f54-bc5c-b94667351093","name":"Ada"},"seq":1},"kind":"chat_message","title":"Five-a-side at Fælled","user_id":"5AEBEA80-DDE7-4E45-A425-CAF3F026367A"}	chat_message:b18474aa-c9a9-4801-aa94-6decc53d28b5:5aebea80-dde7-4e45-a425-caf3f026367a	done	1	2026-11-30 12:24:33.911+00	\N	d5c63698-0	\N	2026-11-30 12:24:31.911+00	2026-11-30 12:24:34.402+00	\N
4661297b-e777-4807-a8df-38429661850a	chat_message	{"body":"Bo: private 2","collapse_key":"chat:1da3c980-7f30-4838-b652-b6e600fd0d6e","data":{"room_id":"1da3c980-7f30-4838-b652-b6e600fd0d6e","sender":{"id":"7e70f9a1-6d66-454a-95dc-4ae3bce69c98","name":"Bo"},"seq":2},"kind":"chat_message","title":"Bo","user_id":"30CB169B-8F06-4F54-BC5C-B94667351093"}	chat_message:1da3c980-7f30-4838-b652-b6e600fd0d6e:30cb169b-8f06-4f54-bc5c-b94667351093	done	1	2026-11-30 12:24:34.298+00	\N	d5c63698-0	\N	2026-11-30 12:24:32.298+00	2026-11-30 12:24:34.402+00	\N
8367a56c-952c-4871-9e75-794fa6af5be5	chat_message	{"body":"Ada: football message 1 from Ada","collapse_key":"chat:b18474aa-c9a9-4801-aa94-6decc53d28b5","data":{"event_id":"b18474aa-c9a9-4801-aa94-6decc53d28b5","event_title":"Five-a-side at Fælled","room_id":"b18474aa-c9a9-4801-aa94-6decc53d28b5","sender":{"id":"30cb169b-8f06-4f54-bc5c-b94667351093","name":"Ada"},"seq":1},"kind":"chat_message","title":"Five-a-side at Fælled","user_id":"7E70F9A1-6D66-454A-95DC-4AE3BCE69C98"}	chat_message:b18474aa-c9a9-4801-aa94-6decc53d28b5:7e70f9a1-6d66-454a-95dc-4ae3bce69c98	done	1	2026-11-30 12:24:33.912+00	\N	d5c63698-0	\N	2026-11-30 12:24:31.912+00	2026-11-30 12:24:34.402+00	\N
\.


--
-- Data for Name: known_sign_ins; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.known_sign_ins (user_id, kind, digest, last_used_at) FROM stdin;
30cb169b-8f06-4f54-bc5c-b94667351093	device	6ec2f858ad0e25f4e555d2454514530879855162c5674ca17ca53d59c7e3a69a	2026-11-30 12:24:29.869999+00
30cb169b-8f06-4f54-bc5c-b94667351093	address	5cb01652e9d4c3a822628b8cb5cad545ebe438dfbcb8533942aea3079556bb53	2026-11-30 12:24:29.869999+00
7e70f9a1-6d66-454a-95dc-4ae3bce69c98	device	89752eb8098171e5150c7459e89751df940e9ff708f498624454dcb5574e647d	2026-11-30 12:24:29.924+00
7e70f9a1-6d66-454a-95dc-4ae3bce69c98	address	5cb01652e9d4c3a822628b8cb5cad545ebe438dfbcb8533942aea3079556bb53	2026-11-30 12:24:29.924+00
b323cd29-6efb-49f9-93c4-0d65f7ab15ab	device	ef95d60fd20b04b73fcdeeb787048e36f76b712902bcee0670762c62d59c8b5e	2026-11-30 12:24:30.292+00
b323cd29-6efb-49f9-93c4-0d65f7ab15ab	address	5cb01652e9d4c3a822628b8cb5cad545ebe438dfbcb8533942aea3079556bb53	2026-11-30 12:24:30.292+00
5aebea80-dde7-4e45-a425-caf3f026367a	device	a3df085a558f3018301e97bfa8f6986e869e8387699c3e1caeac1a3b5c05831e	2026-11-30 12:24:31.039+00
5aebea80-dde7-4e45-a425-caf3f026367a	address	5cb01652e9d4c3a822628b8cb5cad545ebe438dfbcb8533942aea3079556bb53	2026-11-30 12:24:31.039+00
2cd66238-c290-4651-ae20-ca7f8dce6bd8	device	1c50525a4ed24fd8b783f9c3ff416f1160cb1282bcbc7f18b98b102bf7e0a0f9	2026-11-30 12:24:31.063+00
2cd66238-c290-4651-ae20-ca7f8dce6bd8	address	5cb01652e9d4c3a822628b8cb5cad545ebe438dfbcb8533942aea3079556bb53	2026-11-30 12:24:31.063+00
64d50001-5218-4995-bdd1-acd123da73ec	device	84136ae858564b6814e1728f59ea90b048bfc0cbf163bda79a4eeb99b8240902	2026-11-30 12:24:31.260999+00
64d50001-5218-4995-bdd1-acd123da73ec	address	5cb01652e9d4c3a822628b8cb5cad545ebe438dfbcb8533942aea3079556bb53	2026-11-30 12:24:31.260999+00
\.


--
-- Data for Name: ledger_entries; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.ledger_entries (seq, id, event_id, user_id, kind, reason, amount, currency, means, recorded_by, at, note, related_id, reference, group_id, period) FROM stdin;
\.


--
-- Data for Name: level_changes; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.level_changes (id, user_id, sport_slug, event_id, rating_before, rating_after, at) FROM stdin;
\.


--
-- Data for Name: login_failures; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.login_failures (subject, failed_at, attempt, settled) FROM stdin;
\.


--
-- Data for Name: media; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.media (id, owner_id, use, width, height, bytes, created_at, attached_at) FROM stdin;
\.


--
-- Data for Name: media_garbage; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.media_garbage (key, queued_at) FROM stdin;
\.


--
-- Data for Name: media_upload_log; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.media_upload_log (owner_id, created_at) FROM stdin;
\.


--
-- Data for Name: media_variants; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.media_variants (media_id, name, key, width, height, bytes, "position") FROM stdin;
\.


--
-- Data for Name: name_flags; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.name_flags (user_id, name, scripts, flagged_at) FROM stdin;
\.


--
-- Data for Name: network_activity; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.network_activity (network, kind, minute, count) FROM stdin;
127.0.0.0/24	registration	2026-11-30 12:24:00+00	6
\.


--
-- Data for Name: notifications; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.notifications (id, user_id, kind, data, job_id, collapse_key, created_at, read_at, title, body) FROM stdin;
1e9b94f5-f5f9-4934-9622-798392cf9322	7e70f9a1-6d66-454a-95dc-4ae3bce69c98	invitation	{"event_id":"46e5b4d3-5130-43fd-9188-14cd0da4eceb","event_title":"Sunday run","invitation_id":"af1a99a9-b07a-4776-8b5b-a8a8b45f3b25","inviter":{"id":"30cb169b-8f06-4f54-bc5c-b94667351093","name":"Ada"},"starts_at":"2026-12-09T12:24:31.000Z"}	4f547c62-beca-4c74-8286-9d123af27da6	\N	2026-11-30 12:24:31.879+00	\N	Invitation: Sunday run	Ada invites you to Sunday run.
61ee5ea8-20c9-4091-88a8-b3a4ebd14565	b323cd29-6efb-49f9-93c4-0d65f7ab15ab	invitation	{"event_id":"46e5b4d3-5130-43fd-9188-14cd0da4eceb","event_title":"Sunday run","invitation_id":"8ed496ae-b2bf-476f-b6e5-e274afd48235","inviter":{"id":"30cb169b-8f06-4f54-bc5c-b94667351093","name":"Ada"},"starts_at":"2026-12-09T12:24:31.000Z"}	234307ab-8d98-433c-bd5c-08def24796d0	\N	2026-11-30 12:24:31.879+00	\N	Invitation: Sunday run	Ada invites you to Sunday run.
76cff05e-0193-45fb-a2bc-ceb79b5b57c8	30cb169b-8f06-4f54-bc5c-b94667351093	chat_message	{"event_id":"b18474aa-c9a9-4801-aa94-6decc53d28b5","event_title":"Five-a-side at Fælled","room_id":"b18474aa-c9a9-4801-aa94-6decc53d28b5","sender":{"id":"7e70f9a1-6d66-454a-95dc-4ae3bce69c98","name":"Bo"},"seq":2}	daec3dd6-1d5a-412b-a6a7-414c26e4f84b	chat:b18474aa-c9a9-4801-aa94-6decc53d28b5	2026-11-30 12:24:34.346999+00	\N	Five-a-side at Fælled	\N
1fcae672-a364-4041-bb4f-c7612a862aa3	b323cd29-6efb-49f9-93c4-0d65f7ab15ab	chat_message	{"event_id":"b18474aa-c9a9-4801-aa94-6decc53d28b5","event_title":"Five-a-side at Fælled","room_id":"b18474aa-c9a9-4801-aa94-6decc53d28b5","sender":{"id":"30cb169b-8f06-4f54-bc5c-b94667351093","name":"Ada"},"seq":1}	2958c9d1-c12b-486a-af6e-d61200d9c2b9	chat:b18474aa-c9a9-4801-aa94-6decc53d28b5	2026-11-30 12:24:34.346999+00	\N	Five-a-side at Fælled	\N
c044e442-7a8c-431e-b9cd-d6e98f2ec30f	2cd66238-c290-4651-ae20-ca7f8dce6bd8	chat_message	{"event_id":"b18474aa-c9a9-4801-aa94-6decc53d28b5","event_title":"Five-a-side at Fælled","room_id":"b18474aa-c9a9-4801-aa94-6decc53d28b5","sender":{"id":"30cb169b-8f06-4f54-bc5c-b94667351093","name":"Ada"},"seq":1}	541f49ce-283a-45e9-b27d-71c35fd7cfef	chat:b18474aa-c9a9-4801-aa94-6decc53d28b5	2026-11-30 12:24:34.346999+00	\N	Five-a-side at Fælled	\N
284b4a73-da0f-4542-8cc2-2e83a412a974	7e70f9a1-6d66-454a-95dc-4ae3bce69c98	chat_message	{"room_id":"1da3c980-7f30-4838-b652-b6e600fd0d6e","sender":{"id":"30cb169b-8f06-4f54-bc5c-b94667351093","name":"Ada"},"seq":1}	7d8af958-18d6-41b9-a6ac-ceb33ff81edd	chat:1da3c980-7f30-4838-b652-b6e600fd0d6e	2026-11-30 12:24:34.346999+00	\N	Ada	\N
9af9ed91-c83b-491b-bdb5-26638196b603	5aebea80-dde7-4e45-a425-caf3f026367a	chat_message	{"event_id":"b18474aa-c9a9-4801-aa94-6decc53d28b5","event_title":"Five-a-side at Fælled","room_id":"b18474aa-c9a9-4801-aa94-6decc53d28b5","sender":{"id":"30cb169b-8f06-4f54-bc5c-b94667351093","name":"Ada"},"seq":1}	1c7815af-4824-47a4-953e-f44143b91256	chat:b18474aa-c9a9-4801-aa94-6decc53d28b5	2026-11-30 12:24:34.346999+00	\N	Five-a-side at Fælled	\N
b562c9e2-2bf3-42d2-b36e-e275503e94a0	30cb169b-8f06-4f54-bc5c-b94667351093	chat_message	{"room_id":"1da3c980-7f30-4838-b652-b6e600fd0d6e","sender":{"id":"7e70f9a1-6d66-454a-95dc-4ae3bce69c98","name":"Bo"},"seq":2}	4661297b-e777-4807-a8df-38429661850a	chat:1da3c980-7f30-4838-b652-b6e600fd0d6e	2026-11-30 12:24:34.346999+00	\N	Bo	\N
08742a97-8f4f-4bb0-a2f0-3a387f9de213	7e70f9a1-6d66-454a-95dc-4ae3bce69c98	chat_message	{"event_id":"b18474aa-c9a9-4801-aa94-6decc53d28b5","event_title":"Five-a-side at Fælled","room_id":"b18474aa-c9a9-4801-aa94-6decc53d28b5","sender":{"id":"30cb169b-8f06-4f54-bc5c-b94667351093","name":"Ada"},"seq":1}	8367a56c-952c-4871-9e75-794fa6af5be5	chat:b18474aa-c9a9-4801-aa94-6decc53d28b5	2026-11-30 12:24:34.346999+00	\N	Five-a-side at Fælled	\N
\.


--
-- Data for Name: payment_claims; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.payment_claims (id, event_id, user_id, amount, currency, means, note, status, created_at, decided_by, decided_at, group_id) FROM stdin;
\.


--
-- Data for Name: payout_accounts; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.payout_accounts (user_id, stripe_account_id, charges_enabled, created_at, updated_at) FROM stdin;
\.


--
-- Data for Name: push_receipts; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.push_receipts (job_id, device_id) FROM stdin;
\.


--
-- Data for Name: registration_blocks; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.registration_blocks (id, kind, value, reason, created_by, created_at) FROM stdin;
\.


--
-- Data for Name: reports; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.reports (id, reporter_id, target_type, target_id, reason, details, status, created_at, content, outcome, resolved_by, resolved_at) FROM stdin;
\.


--
-- Data for Name: rooms; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.rooms (id, kind, event_id, last_message_seq, last_change_seq, last_activity_at, created_at, group_id) FROM stdin;
0d1ae6d6-4f66-43f6-b676-01d83b45d904	event	0d1ae6d6-4f66-43f6-b676-01d83b45d904	0	0	2026-11-30 12:24:28.621+00	2026-11-30 12:24:28.621+00	\N
035159d9-9783-43fe-ab46-ee175b76cad3	event	035159d9-9783-43fe-ab46-ee175b76cad3	0	0	2026-11-30 12:24:28.621+00	2026-11-30 12:24:28.621+00	\N
6f933677-45dd-49ff-a648-74c200ce27fa	event	6f933677-45dd-49ff-a648-74c200ce27fa	0	0	2026-11-30 12:24:28.621+00	2026-11-30 12:24:28.621+00	\N
6db1254a-4ca8-43fe-8d56-886609fe1284	event	6db1254a-4ca8-43fe-8d56-886609fe1284	0	0	2026-11-30 12:24:28.621+00	2026-11-30 12:24:28.621+00	\N
d59753aa-b052-4994-9ee9-3413f08ce6b3	event	d59753aa-b052-4994-9ee9-3413f08ce6b3	0	0	2026-11-30 12:24:28.621+00	2026-11-30 12:24:28.621+00	\N
4c0bd2b3-d5e5-4a58-a2d1-44a9015861fd	event	4c0bd2b3-d5e5-4a58-a2d1-44a9015861fd	0	0	2026-11-30 12:24:28.621+00	2026-11-30 12:24:28.621+00	\N
92155744-d2b6-4808-b3d6-0e6ccce3171a	event	92155744-d2b6-4808-b3d6-0e6ccce3171a	0	0	2026-11-30 12:24:28.621+00	2026-11-30 12:24:28.621+00	\N
77511a0c-dde8-463d-9e73-21292d454726	event	77511a0c-dde8-463d-9e73-21292d454726	0	0	2026-11-30 12:24:28.621+00	2026-11-30 12:24:28.621+00	\N
aa989b04-778e-4c58-95c7-816de2d52edd	event	aa989b04-778e-4c58-95c7-816de2d52edd	0	0	2026-11-30 12:24:28.621+00	2026-11-30 12:24:28.621+00	\N
379b9a3a-56ec-4dc3-a411-b64da63c9e41	event	379b9a3a-56ec-4dc3-a411-b64da63c9e41	0	0	2026-11-30 12:24:28.621+00	2026-11-30 12:24:28.621+00	\N
5180f4c3-af55-456e-bf95-cb2ecc0ba179	event	5180f4c3-af55-456e-bf95-cb2ecc0ba179	0	0	2026-11-30 12:24:28.621+00	2026-11-30 12:24:28.621+00	\N
da9f8a23-3bdd-4a32-9b2c-91e47e914c8e	event	da9f8a23-3bdd-4a32-9b2c-91e47e914c8e	0	0	2026-11-30 12:24:28.621+00	2026-11-30 12:24:28.621+00	\N
f0185960-3f0b-40db-8c00-f877d2efba2f	event	f0185960-3f0b-40db-8c00-f877d2efba2f	0	0	2026-11-30 12:24:28.621+00	2026-11-30 12:24:28.621+00	\N
a6b24c6f-816d-4b40-b701-9778f865f577	event	a6b24c6f-816d-4b40-b701-9778f865f577	0	0	2026-11-30 12:24:28.621+00	2026-11-30 12:24:28.621+00	\N
eb8d9dce-a94c-4627-98fb-bfb8ca167e2a	event	eb8d9dce-a94c-4627-98fb-bfb8ca167e2a	0	0	2026-11-30 12:24:28.621+00	2026-11-30 12:24:28.621+00	\N
40f1a18c-11ee-4525-9408-c1a560d14aaa	event	40f1a18c-11ee-4525-9408-c1a560d14aaa	0	0	2026-11-30 12:24:28.621+00	2026-11-30 12:24:28.621+00	\N
e71d761b-c0b8-4457-87bd-959a2fa068d6	event	e71d761b-c0b8-4457-87bd-959a2fa068d6	0	0	2026-11-30 12:24:28.621+00	2026-11-30 12:24:28.621+00	\N
796fd6a0-cfbb-4f0c-b892-40f89805859a	event	796fd6a0-cfbb-4f0c-b892-40f89805859a	0	0	2026-11-30 12:24:28.621+00	2026-11-30 12:24:28.621+00	\N
375487ec-f236-4130-af13-faca5113bbc8	event	375487ec-f236-4130-af13-faca5113bbc8	0	0	2026-11-30 12:24:28.621+00	2026-11-30 12:24:28.621+00	\N
fe141f51-52b9-4067-8ab0-f70da0ddfa6a	event	fe141f51-52b9-4067-8ab0-f70da0ddfa6a	0	0	2026-11-30 12:24:28.621+00	2026-11-30 12:24:28.621+00	\N
34081013-c6b1-4777-a5e3-2a6cc9efd4c8	event	34081013-c6b1-4777-a5e3-2a6cc9efd4c8	0	0	2026-11-30 12:24:28.621+00	2026-11-30 12:24:28.621+00	\N
b040b7d8-89f2-4e9a-9585-ee64a2639c46	event	b040b7d8-89f2-4e9a-9585-ee64a2639c46	0	0	2026-11-30 12:24:28.621+00	2026-11-30 12:24:28.621+00	\N
0b36d87c-0216-44e6-9138-bf3559d34d6c	event	0b36d87c-0216-44e6-9138-bf3559d34d6c	0	0	2026-11-30 12:24:28.621+00	2026-11-30 12:24:28.621+00	\N
2eef62f6-659e-45d5-9058-ff4a303abbfe	event	2eef62f6-659e-45d5-9058-ff4a303abbfe	0	0	2026-11-30 12:24:28.621+00	2026-11-30 12:24:28.621+00	\N
ec07e20c-cf30-460d-8651-7425c7d4afdd	event	ec07e20c-cf30-460d-8651-7425c7d4afdd	0	0	2026-11-30 12:24:28.621+00	2026-11-30 12:24:28.621+00	\N
546400b7-fb7a-45ff-bfc9-71285c69e470	event	546400b7-fb7a-45ff-bfc9-71285c69e470	0	0	2026-11-30 12:24:28.621+00	2026-11-30 12:24:28.621+00	\N
e4c0aed1-3673-40a1-93eb-773d80856751	event	e4c0aed1-3673-40a1-93eb-773d80856751	0	0	2026-11-30 12:24:28.621+00	2026-11-30 12:24:28.621+00	\N
113790e0-38f2-4dad-a4da-b55492cba535	event	113790e0-38f2-4dad-a4da-b55492cba535	0	0	2026-11-30 12:24:28.621+00	2026-11-30 12:24:28.621+00	\N
f1b81e60-b455-4a27-9644-a6aefa694d5f	event	f1b81e60-b455-4a27-9644-a6aefa694d5f	0	0	2026-11-30 12:24:28.621+00	2026-11-30 12:24:28.621+00	\N
67b5583b-d253-4a01-b46e-71a40e6cbaa9	event	67b5583b-d253-4a01-b46e-71a40e6cbaa9	0	0	2026-11-30 12:24:28.621+00	2026-11-30 12:24:28.621+00	\N
ee96e681-fd3c-4157-98b8-09df97d2a7d3	event	ee96e681-fd3c-4157-98b8-09df97d2a7d3	0	0	2026-11-30 12:24:31.346999+00	2026-11-30 12:24:31.346999+00	\N
46e5b4d3-5130-43fd-9188-14cd0da4eceb	event	46e5b4d3-5130-43fd-9188-14cd0da4eceb	0	0	2026-11-30 12:24:31.378+00	2026-11-30 12:24:31.378+00	\N
b18474aa-c9a9-4801-aa94-6decc53d28b5	event	b18474aa-c9a9-4801-aa94-6decc53d28b5	7	3	2026-11-30 12:24:32.059+00	2026-11-30 12:24:31.323+00	\N
1da3c980-7f30-4838-b652-b6e600fd0d6e	conversation	\N	3	0	2026-11-30 12:24:32.313999+00	2026-11-30 12:24:32.243+00	\N
\.


--
-- Data for Name: schema_migrations; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.schema_migrations (version, name, checksum, applied_at) FROM stdin;
1	accounts	1c3f1cad0202d794d517211040b1770b9186bc7b53a3759b8fedb616f18adbe4	2026-11-30T12:24:25Z
2	events	aff29501aec8729835844c9cb040d82246b8e827b9845c1869f1bfe6d0127d3c	2026-11-30T12:24:25Z
3	jobs_notifications	c81eb4be6f08eedec5227b1930119f79bb67176221ac03b1b58080036216d668	2026-11-30T12:24:26Z
4	chat	3a48fb97d54351e51b192909feda9f538a1588eec6ee641355250a78c213f49c	2026-11-30T12:24:26Z
5	safety	259ea05c764ad646c31e9032a5b5070a183b905042cbd7849cfd48bcc0d42a93	2026-11-30T12:24:26Z
6	events_live_order	59d2be1c7724cbed8bfa318c868f7875af617138519f31a7ce5f01d7345f27f9	2026-11-30T12:24:26Z
7	events_live_covering	618d663397ee91f244805e74f3767ccdb96f8e2992fa3f161971dc27f7294bfc	2026-11-30T12:24:26Z
8	trust	a5f00475b764470667297409c99a46201821a7dd77ccecc8314cdb25824ee168	2026-11-30T12:24:26Z
9	settled_attempts	bb6391827137a8fb36ca1f6952754cfcfd9904dd7ebd8747d5a22cbe102f7527	2026-11-30T12:24:26Z
10	media	37d1fc43040f7025a8c31445f1e63eb4398ac9f6665a45b36ad6c35fbc05660a	2026-11-30T12:24:26Z
11	chat_attachments	e570881feed2107064e32e46c34664bafcce90a68e3797f7da62146afad3eaf6	2026-11-30T12:24:26Z
12	identities	4d322f25d7a35e7c76f26e18efd592506fd24d39328a491d9eccfd3678ec2ddd	2026-11-30T12:24:26Z
13	email_codes	a3ee4ad4ab82d5dc271c34e860e8125ee649bafd78019e4f43bd381eeced1c79	2026-11-30T12:24:26Z
14	push_channels	096893f23400cb7ba9e2ffd7b1709452c93372782d7ac49f0726ccc4fb4580d7	2026-11-30T12:24:26Z
15	rooms	479ca87e46cbbac681ef7f0e92608e21667667379440ea215378735d65af9e03	2026-11-30T12:24:26Z
16	event_bans	59bda86d881ff1c207705a12735ddf59455722d3cb62e55a50c9257ffac2f59c	2026-11-30T12:24:26Z
17	known_sign_ins	43f89b0a0c6d16c417cef8da252ca19bb1bd338c1b478e233f39f8649c7af934	2026-11-30T12:24:26Z
18	name_flags	ea87164e4e3c8c79c0091679aee2e8e5739299b25b48ec15a15613d8b428747b	2026-11-30T12:24:26Z
19	reminders	4e9605889d010a3cfc20f6a10b850b68cf07983ffa4a1e2179524cf5fb8c93ed	2026-11-30T12:24:26Z
20	reset_requests	2f689e1f8156b4bb07a85c220937773df85b30f36cc3012797eff7d29c44d085	2026-11-30T12:24:26Z
21	calendar_feeds	12b3d48d96209114444433c49b8a53590ed87ff551c179b1153d2721ecf3ff04	2026-11-30T12:24:26Z
22	series	f2a344acdbf2a9617c8b2f2e9fea904ec18301ff0db636ac3b1d9c1aa37a2e02	2026-11-30T12:24:26Z
23	answer_deadline	efd05e76ec36d2d0c729dedde7be08ff68581b1cacc55df4c84bf35ad986a92b	2026-11-30T12:24:26Z
24	maybe	4227853ab257e265ab9234f6996f205f7ca9fadd44ef7aebacdf47c622ca37f7	2026-11-30T12:24:26Z
25	known_place_codes	5f8baa87c11a84f6027d1ee5fc2f53b8a96f798ec7bd8f6f29a24187f0400cf0	2026-11-30T12:24:26Z
26	series_split	167b59663990f09fab8ffaec1ebd611709c3ad4aabf6d344708682c0ef4c72be	2026-11-30T12:24:26Z
27	showing_up	54397b418accc73fe1e8cc7bcad82582c9f3c348ae2ac1956de0e7193c230988	2026-11-30T12:24:26Z
28	min_players	13c15c34d1e896019778aaa293650b0ae10dadc154691f63a875ac6752eaedb2	2026-11-30T12:24:26Z
29	waitlist_offers	4e21a381e072ba4e3d8f279a38394c7f61df2dadcddcb212ca2f8bd118253efe	2026-11-30T12:24:26Z
30	who_plays	fda7668d56f3073bcc221cd2f8b425e926f0780888868f43f14c4a91efbc6bbc	2026-11-30T12:24:26Z
31	groups	ba399a1243a758361189ca82f2fb5ccacadb246af54e67f02a793636120ed301	2026-11-30T12:24:26Z
32	group_events	32930d7127eaf0d6a97a6b208ba83c691eb7199e8f91bc0fc30103b55923e8e7	2026-11-30T12:24:26Z
33	group_rooms	7b43c92da0b2892ca314f26b88928b679d45303b1ec758cd18637ed8d4e15332	2026-11-30T12:24:26Z
34	group_covers	22c024dcea113b346920b5a26cfd39dc507a356c072535ad32b35b1b08ab401b	2026-11-30T12:24:26Z
35	chat_instances	435a53b10eca95e82d5af6bf4b436f8daf0c291f3090df4e818cb3e3ac930293	2026-11-30T12:24:26Z
36	series_of_deleted_accounts	7b134ed9cdf554ab90fa8e0d3df3903461f016bdcbd2179c5b835faa7b633463	2026-11-30T12:24:26Z
37	typed_scheduled_jobs	3c2ec47ee13388aaef6aaecd58eea826c97cf699fea1b725c8f7e19dbd882392	2026-11-30T12:24:26Z
38	event_times_changed	ae5601e3c3050c13f168fb04e6a39748213e7267e6ec747697a43cf4784b5450	2026-11-30T12:24:26Z
39	staff_and_audit	3aaa309b9029240f7219ea1694a546a0658f0589789d76c1a2b4cef9cdf798ee	2026-11-30T12:24:26Z
40	moderation	c1505c8501f499f4be001b0c107dd019393b2d6082c187af22b6abee37988cc7	2026-11-30T12:24:27Z
41	appeals	ff110606dfcd38493366c050ad81f725164f78a22a7cb06b925e8f8064741a22	2026-11-30T12:24:27Z
42	data_exports	8f1f108e0c5900b62afe8ee4b5e18c217505fecb3dfeaa5e07eea214dad75d53	2026-11-30T12:24:27Z
43	teams	56cfdb28b8a2749f3fa91533564d89b7d5113dff5fc39222a5e09a2c05149c15	2026-11-30T12:24:27Z
44	notification_texts	9aa385c7ab8af6ce163a0c7f7430edaaaa53bad8c5b591247a122bda6d6b17da	2026-11-30T12:24:27Z
45	results	0f64b9a711879409e6b5ee20b644d096e319991711123867427ca3f6f4150105	2026-11-30T12:24:27Z
46	substitutes	9c89631fc9dd55cf340ebf40b1a0b9d27a7bc1cfbba420dce0aacc8f20ab7e76	2026-11-30T12:24:27Z
47	polls	dec97517801ce82b9d1676d2b38f0df5a4076aa0aa433038e4e37052afe29294	2026-11-30T12:24:27Z
48	money	50d29791ad9ee59be484879832cba70a65adc6fe0f1048ab14000ef9d1e94ec9	2026-11-30T12:24:27Z
49	card_payments	12de2859ee3d0016958ba599b4c517cf30437c1a6287375a5ca6800ba02a5a12	2026-11-30T12:24:27Z
50	card_refunds_pending	15922f5a28dd3e4c10c4c18c519f2429be7bc41655034554552db77b62151d6a	2026-11-30T12:24:27Z
51	group_dues	324d9b776aedb613e043bbac9882aaaa74ebc3b5a7d8c5fad0c2e84b024a81a4	2026-11-30T12:24:27Z
52	report_groups	238819a6ecd7bc0323a6fca352b571fcbcbba8568d34732d5c1d1a7f52ab402c	2026-11-30T12:24:27Z
53	report_photos	21f31d1d8d8609ee1b0e866b31b36f1265cd2d37a5d57aa38fe7d9f2e0c33005	2026-11-30T12:24:27Z
54	abuse	742c762a2e555fa747334cfc194190043041f2c9738ed81b9bef0c36398efb43	2026-11-30T12:24:27Z
55	poll_vote	c18a2048ca9ded38d1e999f96c765bd80497010f2fdcc9ab9a0d270ec2317a8f	2026-11-30T12:24:27Z
\.


--
-- Data for Name: series; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.series (id, organiser_id, group_id, title, sport_slug, description, address, lat, lon, capacity, time_zone, reminders, start_minutes, duration_minutes, first_date, rule, status, made_through, version, created_at, updated_at, followed_by, members_only, price) FROM stdin;
\.


--
-- Data for Name: series_opt_outs; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.series_opt_outs (series_id, user_id, occurrence_date) FROM stdin;
\.


--
-- Data for Name: series_regulars; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.series_regulars (series_id, user_id, joined_at) FROM stdin;
\.


--
-- Data for Name: series_skips; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.series_skips (series_id, occurrence_date) FROM stdin;
\.


--
-- Data for Name: server_secrets; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.server_secrets (name, value) FROM stdin;
media_url_key	46b863aedfa95bf3ddb5e76c8961c2e07b4fe824023095758d35c7408b311c4a
export_url_key	95232e8f3e98e87c6c27349f9aed9d664b972dc329facbf1bf3e081eace8e03f
\.


--
-- Data for Name: sign_in_networks; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.sign_in_networks (user_id, network, last_used_at) FROM stdin;
30cb169b-8f06-4f54-bc5c-b94667351093	127.0.0.0/24	2026-11-30 12:24:29.869999+00
7e70f9a1-6d66-454a-95dc-4ae3bce69c98	127.0.0.0/24	2026-11-30 12:24:29.924+00
b323cd29-6efb-49f9-93c4-0d65f7ab15ab	127.0.0.0/24	2026-11-30 12:24:30.292+00
5aebea80-dde7-4e45-a425-caf3f026367a	127.0.0.0/24	2026-11-30 12:24:31.039+00
2cd66238-c290-4651-ae20-ca7f8dce6bd8	127.0.0.0/24	2026-11-30 12:24:31.063+00
64d50001-5218-4995-bdd1-acd123da73ec	127.0.0.0/24	2026-11-30 12:24:31.260999+00
\.


--
-- Data for Name: sport_groups; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.sport_groups (id, name, description, lat, lon, policy, visibility, owner_id, member_count, invite_digest, status, version, created_at, updated_at, cover_id, cover_variants, dues) FROM stdin;
\.


--
-- Data for Name: sports; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.sports (slug, name, "bit") FROM stdin;
football	Football	0
basketball	Basketball	1
tennis	Tennis	2
running	Running	3
cycling	Cycling	4
swimming	Swimming	5
volleyball	Volleyball	6
beach-volleyball	Beach volleyball	7
badminton	Badminton	8
table-tennis	Table tennis	9
padel	Padel	10
squash	Squash	11
golf	Golf	12
hiking	Hiking	13
climbing	Climbing	14
bouldering	Bouldering	15
yoga	Yoga	16
pilates	Pilates	17
crossfit	CrossFit	18
boxing	Boxing	19
martial-arts	Martial arts	20
rugby	Rugby	21
handball	Handball	22
hockey	Field hockey	23
ice-hockey	Ice hockey	24
baseball	Baseball	25
softball	Softball	26
cricket	Cricket	27
american-football	American football	28
ultimate-frisbee	Ultimate frisbee	29
skateboarding	Skateboarding	30
surfing	Surfing	31
kitesurfing	Kitesurfing	32
sailing	Sailing	33
rowing	Rowing	34
kayaking	Kayaking	35
skiing	Skiing	36
snowboarding	Snowboarding	37
cross-country-skiing	Cross-country skiing	38
ice-skating	Ice skating	39
inline-skating	Inline skating	40
triathlon	Triathlon	41
trail-running	Trail running	42
mountain-biking	Mountain biking	43
fitness	Fitness	44
dance	Dance	45
petanque	Pétanque	46
bowling	Bowling	47
darts	Darts	48
chess	Chess	49
futsal	Futsal	50
water-polo	Water polo	51
\.


--
-- Data for Name: stripe_events; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.stripe_events (id, type, received_at) FROM stdin;
\.


--
-- Data for Name: substitute_offers; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.substitute_offers (request_id, user_id, created_at) FROM stdin;
\.


--
-- Data for Name: substitute_requests; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.substitute_requests (id, event_id, requester_id, status, created_at, offered_count, expires_at, filled_by, closed_at) FROM stdin;
\.


--
-- Data for Name: team_plans; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.team_plans (event_id, team_count, method, publish_minutes, published_at, updated_at) FROM stdin;
\.


--
-- Data for Name: team_players; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.team_players (event_id, user_id, team, fixed) FROM stdin;
\.


--
-- Data for Name: used_tokens; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.used_tokens (digest, expires_at) FROM stdin;
\.


--
-- Data for Name: user_levels; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.user_levels (user_id, sport_slug, level_half, rating, rated_games) FROM stdin;
\.


--
-- Data for Name: user_sports; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.user_sports (user_id, sport_slug) FROM stdin;
d70d3259-e4e1-4b63-9c66-3cf4d73c4c04	chess
4eb3454a-df54-43eb-b064-01a324990fdf	handball
4eb3454a-df54-43eb-b064-01a324990fdf	petanque
e9b91f3a-331f-48f5-ba9a-0d310162a113	padel
e9b91f3a-331f-48f5-ba9a-0d310162a113	running
e9b91f3a-331f-48f5-ba9a-0d310162a113	darts
5b9e85d1-3f72-4d2d-a10d-d28948f0d4a4	running
5b9e85d1-3f72-4d2d-a10d-d28948f0d4a4	crossfit
5b9e85d1-3f72-4d2d-a10d-d28948f0d4a4	rowing
e6f46135-856d-4740-abc1-0ebb0f51d292	ice-hockey
e6f46135-856d-4740-abc1-0ebb0f51d292	crossfit
11ecaa10-c2f4-43cb-830f-3f8c6dd122c7	crossfit
544ac49b-fbd9-4787-ab74-957d4b9b58b5	handball
544ac49b-fbd9-4787-ab74-957d4b9b58b5	running
544ac49b-fbd9-4787-ab74-957d4b9b58b5	chess
544ac49b-fbd9-4787-ab74-957d4b9b58b5	hiking
92b099ae-d0a3-4ff5-8314-397efc7913b2	futsal
92b099ae-d0a3-4ff5-8314-397efc7913b2	skiing
b81f511c-d658-4ba5-a5fd-143a8d3ef8d3	water-polo
b81f511c-d658-4ba5-a5fd-143a8d3ef8d3	crossfit
c30119d9-b041-4657-9c95-434e3e1cf68b	water-polo
c30119d9-b041-4657-9c95-434e3e1cf68b	mountain-biking
1813664d-dae8-4d44-9034-2f3bf4be4ab2	kitesurfing
1813664d-dae8-4d44-9034-2f3bf4be4ab2	sailing
b7043b64-b4e0-4713-9787-42c4681f8152	golf
b7043b64-b4e0-4713-9787-42c4681f8152	inline-skating
b7043b64-b4e0-4713-9787-42c4681f8152	hiking
b7043b64-b4e0-4713-9787-42c4681f8152	padel
fd262291-ee7a-4913-bbad-85fdb9069a4d	football
fd262291-ee7a-4913-bbad-85fdb9069a4d	pilates
fd262291-ee7a-4913-bbad-85fdb9069a4d	running
fd262291-ee7a-4913-bbad-85fdb9069a4d	softball
87537df7-92ba-4d5a-95e3-5ce7652fe8be	kitesurfing
87537df7-92ba-4d5a-95e3-5ce7652fe8be	ice-skating
87537df7-92ba-4d5a-95e3-5ce7652fe8be	table-tennis
87537df7-92ba-4d5a-95e3-5ce7652fe8be	dance
b8003617-4e19-4c89-83ca-bb3d0b121ee1	rugby
b8003617-4e19-4c89-83ca-bb3d0b121ee1	yoga
ec4882d3-bc8d-4f21-b785-053a0af957c1	crossfit
fe8fb9f1-c7f8-4ab3-aca3-d502e1389069	kayaking
fe8fb9f1-c7f8-4ab3-aca3-d502e1389069	triathlon
fe8fb9f1-c7f8-4ab3-aca3-d502e1389069	bowling
97028506-9058-45ba-afdd-d9eaf1561757	climbing
97028506-9058-45ba-afdd-d9eaf1561757	baseball
97028506-9058-45ba-afdd-d9eaf1561757	softball
458e51cd-dabc-4735-a526-74f2aff9e21c	ultimate-frisbee
3d40b007-2f50-4e27-942c-426ca2cd2e51	cricket
\.


--
-- Data for Name: users; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.users (id, email, email_normalized, name, password_hash, bio, lat, lon, discoverable, version, created_at, updated_at, deleted_at, photo_id, photo_variants, email_verified, reminders, language, calendar_feed, gender, staff_role, limited_at, suspended_at, suspended_until) FROM stdin;
d70d3259-e4e1-4b63-9c66-3cf4d73c4c04	demo-7-0@sportlook.demo	demo-7-0@sportlook.demo	Xavi P	$2b$04$iE.YUFnmP7vFE88uqLMlv.hpfcwXJXKPy03.r3tE9rtpUpRCDqbdC		14.54375	121.046024	t	1	2026-11-30 12:24:28.621+00	2026-11-30 12:24:28.621+00	\N	\N	\N	f	t	en	\N	\N	\N	\N	\N	\N
4eb3454a-df54-43eb-b064-01a324990fdf	demo-7-1@sportlook.demo	demo-7-1@sportlook.demo	Wen O	$2b$04$iE.YUFnmP7vFE88uqLMlv.hpfcwXJXKPy03.r3tE9rtpUpRCDqbdC		4.889583	-74.086775	t	1	2026-11-30 12:24:28.621+00	2026-11-30 12:24:28.621+00	\N	\N	\N	f	t	en	\N	\N	\N	\N	\N	\N
e9b91f3a-331f-48f5-ba9a-0d310162a113	demo-7-2@sportlook.demo	demo-7-2@sportlook.demo	Kai X	$2b$04$iE.YUFnmP7vFE88uqLMlv.hpfcwXJXKPy03.r3tE9rtpUpRCDqbdC		1.410417	103.815776	f	1	2026-11-30 12:24:28.621+00	2026-11-30 12:24:28.621+00	\N	\N	\N	f	t	en	\N	\N	\N	\N	\N	\N
5b9e85d1-3f72-4d2d-a10d-d28948f0d4a4	demo-7-3@sportlook.demo	demo-7-3@sportlook.demo	Xavi J	$2b$04$iE.YUFnmP7vFE88uqLMlv.hpfcwXJXKPy03.r3tE9rtpUpRCDqbdC		52.289583	13.136921	t	1	2026-11-30 12:24:28.621+00	2026-11-30 12:24:28.621+00	\N	\N	\N	f	t	en	\N	\N	\N	\N	\N	\N
e6f46135-856d-4740-abc1-0ebb0f51d292	demo-7-4@sportlook.demo	demo-7-4@sportlook.demo	Femi M	$2b$04$iE.YUFnmP7vFE88uqLMlv.hpfcwXJXKPy03.r3tE9rtpUpRCDqbdC		19.172917	73.052557	t	1	2026-11-30 12:24:28.621+00	2026-11-30 12:24:28.621+00	\N	\N	\N	f	t	en	\N	\N	\N	\N	\N	\N
11ecaa10-c2f4-43cb-830f-3f8c6dd122c7	demo-7-5@sportlook.demo	demo-7-5@sportlook.demo	Zoe Y	$2b$04$iE.YUFnmP7vFE88uqLMlv.hpfcwXJXKPy03.r3tE9rtpUpRCDqbdC		12.777083	77.539283	f	1	2026-11-30 12:24:28.621+00	2026-11-30 12:24:28.621+00	\N	\N	\N	f	t	en	\N	\N	\N	\N	\N	\N
544ac49b-fbd9-4787-ab74-957d4b9b58b5	demo-7-6@sportlook.demo	demo-7-6@sportlook.demo	Quinn I	$2b$04$iE.YUFnmP7vFE88uqLMlv.hpfcwXJXKPy03.r3tE9rtpUpRCDqbdC		19.19375	-99.113938	f	1	2026-11-30 12:24:28.621+00	2026-11-30 12:24:28.621+00	\N	\N	\N	f	t	en	\N	\N	\N	\N	\N	\N
92b099ae-d0a3-4ff5-8314-397efc7913b2	demo-7-7@sportlook.demo	demo-7-7@sportlook.demo	Omar C	$2b$04$iE.YUFnmP7vFE88uqLMlv.hpfcwXJXKPy03.r3tE9rtpUpRCDqbdC		-12.04375	-77.082298	f	1	2026-11-30 12:24:28.621+00	2026-11-30 12:24:28.621+00	\N	\N	\N	f	t	en	\N	\N	\N	\N	\N	\N
b81f511c-d658-4ba5-a5fd-143a8d3ef8d3	demo-7-8@sportlook.demo	demo-7-8@sportlook.demo	Tomás Z	$2b$04$iE.YUFnmP7vFE88uqLMlv.hpfcwXJXKPy03.r3tE9rtpUpRCDqbdC		21.510417	-158.012242	f	1	2026-11-30 12:24:28.621+00	2026-11-30 12:24:28.621+00	\N	\N	\N	f	t	en	\N	\N	\N	\N	\N	\N
c30119d9-b041-4657-9c95-434e3e1cf68b	demo-7-9@sportlook.demo	demo-7-9@sportlook.demo	Pia F	$2b$04$iE.YUFnmP7vFE88uqLMlv.hpfcwXJXKPy03.r3tE9rtpUpRCDqbdC		-36.697917	174.608445	t	1	2026-11-30 12:24:28.621+00	2026-11-30 12:24:28.621+00	\N	\N	\N	f	t	en	\N	\N	\N	\N	\N	\N
1813664d-dae8-4d44-9034-2f3bf4be4ab2	demo-7-10@sportlook.demo	demo-7-10@sportlook.demo	Tomás D	$2b$04$iE.YUFnmP7vFE88uqLMlv.hpfcwXJXKPy03.r3tE9rtpUpRCDqbdC		-33.947917	18.361145	t	1	2026-11-30 12:24:28.621+00	2026-11-30 12:24:28.621+00	\N	\N	\N	f	t	en	\N	\N	\N	\N	\N	\N
b7043b64-b4e0-4713-9787-42c4681f8152	demo-7-11@sportlook.demo	demo-7-11@sportlook.demo	Pia Z	$2b$04$iE.YUFnmP7vFE88uqLMlv.hpfcwXJXKPy03.r3tE9rtpUpRCDqbdC		25.89375	-80.21203	t	1	2026-11-30 12:24:28.621+00	2026-11-30 12:24:28.621+00	\N	\N	\N	f	t	en	\N	\N	\N	\N	\N	\N
fd262291-ee7a-4913-bbad-85fdb9069a4d	demo-7-12@sportlook.demo	demo-7-12@sportlook.demo	Hana F	$2b$04$iE.YUFnmP7vFE88uqLMlv.hpfcwXJXKPy03.r3tE9rtpUpRCDqbdC		-33.89375	18.555174	t	1	2026-11-30 12:24:28.621+00	2026-11-30 12:24:28.621+00	\N	\N	\N	f	t	en	\N	\N	\N	\N	\N	\N
87537df7-92ba-4d5a-95e3-5ce7652fe8be	demo-7-13@sportlook.demo	demo-7-13@sportlook.demo	Hana K	$2b$04$iE.YUFnmP7vFE88uqLMlv.hpfcwXJXKPy03.r3tE9rtpUpRCDqbdC		6.610417	3.280163	t	1	2026-11-30 12:24:28.621+00	2026-11-30 12:24:28.621+00	\N	\N	\N	f	t	en	\N	\N	\N	\N	\N	\N
b8003617-4e19-4c89-83ca-bb3d0b121ee1	demo-7-14@sportlook.demo	demo-7-14@sportlook.demo	Pia L	$2b$04$iE.YUFnmP7vFE88uqLMlv.hpfcwXJXKPy03.r3tE9rtpUpRCDqbdC		52.527083	5.057834	t	1	2026-11-30 12:24:28.621+00	2026-11-30 12:24:28.621+00	\N	\N	\N	f	t	en	\N	\N	\N	\N	\N	\N
ec4882d3-bc8d-4f21-b785-053a0af957c1	demo-7-15@sportlook.demo	demo-7-15@sportlook.demo	Nia F	$2b$04$iE.YUFnmP7vFE88uqLMlv.hpfcwXJXKPy03.r3tE9rtpUpRCDqbdC		51.464583	-0.521671	t	1	2026-11-30 12:24:28.621+00	2026-11-30 12:24:28.621+00	\N	\N	\N	f	t	en	\N	\N	\N	\N	\N	\N
fe8fb9f1-c7f8-4ab3-aca3-d502e1389069	demo-7-16@sportlook.demo	demo-7-16@sportlook.demo	Omar R	$2b$04$iE.YUFnmP7vFE88uqLMlv.hpfcwXJXKPy03.r3tE9rtpUpRCDqbdC		-37.839583	144.995603	f	1	2026-11-30 12:24:28.621+00	2026-11-30 12:24:28.621+00	\N	\N	\N	f	t	en	\N	\N	\N	\N	\N	\N
97028506-9058-45ba-afdd-d9eaf1561757	demo-7-17@sportlook.demo	demo-7-17@sportlook.demo	Ivan C	$2b$04$iE.YUFnmP7vFE88uqLMlv.hpfcwXJXKPy03.r3tE9rtpUpRCDqbdC		-6.23125	106.957585	f	1	2026-11-30 12:24:28.621+00	2026-11-30 12:24:28.621+00	\N	\N	\N	f	t	en	\N	\N	\N	\N	\N	\N
458e51cd-dabc-4735-a526-74f2aff9e21c	demo-7-18@sportlook.demo	demo-7-18@sportlook.demo	Wen M	$2b$04$iE.YUFnmP7vFE88uqLMlv.hpfcwXJXKPy03.r3tE9rtpUpRCDqbdC		14.54375	121.274169	t	1	2026-11-30 12:24:28.621+00	2026-11-30 12:24:28.621+00	\N	\N	\N	f	t	en	\N	\N	\N	\N	\N	\N
3d40b007-2f50-4e27-942c-426ca2cd2e51	demo-7-19@sportlook.demo	demo-7-19@sportlook.demo	Chloé I	$2b$04$iE.YUFnmP7vFE88uqLMlv.hpfcwXJXKPy03.r3tE9rtpUpRCDqbdC		25.310417	55.34402	t	1	2026-11-30 12:24:28.621+00	2026-11-30 12:24:28.621+00	\N	\N	\N	f	t	en	\N	\N	\N	\N	\N	\N
7e70f9a1-6d66-454a-95dc-4ae3bce69c98	bo@upgrade.test	bo@upgrade.test	Bo	$2b$04$xZjuihOpsL81ax8Z66LLlO62AORYsB5y.QnwxbKEjppwgOA3nRNii		\N	\N	f	1	2026-11-30 12:24:29.924+00	2026-11-30 12:24:29.924+00	\N	\N	\N	f	t	en	\N	\N	\N	\N	\N	\N
b323cd29-6efb-49f9-93c4-0d65f7ab15ab	cleo@upgrade.test	cleo@upgrade.test	Cleo	$2b$04$61pWL1NgLqWutjGOIYqylOHFcfokcF22cCMHbZG261MJf/0KlJ9JC		\N	\N	f	1	2026-11-30 12:24:30.292+00	2026-11-30 12:24:30.292+00	\N	\N	\N	f	t	en	\N	\N	\N	\N	\N	\N
5aebea80-dde7-4e45-a425-caf3f026367a	dev@upgrade.test	dev@upgrade.test	Dev	$2b$04$51U4qHjWGLhvvS/pL3hUEuNh3VJKog70i797SvnFvAItEWyclNtGe		\N	\N	f	1	2026-11-30 12:24:31.039+00	2026-11-30 12:24:31.039+00	\N	\N	\N	f	t	en	\N	\N	\N	\N	\N	\N
2cd66238-c290-4651-ae20-ca7f8dce6bd8	eli@upgrade.test	eli@upgrade.test	Eli	$2b$04$Z0dg.pb8wowX5DArrVB/muitzkDSexB2uJcIkGeeCoPFhl285hVUO		\N	\N	f	1	2026-11-30 12:24:31.063+00	2026-11-30 12:24:31.063+00	\N	\N	\N	f	t	en	\N	\N	\N	\N	\N	\N
64d50001-5218-4995-bdd1-acd123da73ec	fay@upgrade.test	fay@upgrade.test	Fay	$2b$04$MB8UWyqQC63IW0OnnK9OaeNWFRI05zZAeAYEfLAXI3FYVxj2rrHIK		\N	\N	f	1	2026-11-30 12:24:31.260999+00	2026-11-30 12:24:31.260999+00	\N	\N	\N	f	t	en	\N	\N	\N	\N	\N	\N
30cb169b-8f06-4f54-bc5c-b94667351093	ada@upgrade.test	ada@upgrade.test	Ada	$2b$04$h.zuUPMk7piCA3KL5wh1IOiDKuVlXF9/xbMaAWFsT4gHx87pReR1i	Left back, Tuesdays	\N	\N	f	2	2026-11-30 12:24:29.869999+00	2026-11-30 12:24:31.302+00	\N	\N	\N	f	t	en	\N	\N	\N	\N	\N	\N
\.


--
-- Name: audit_log_seq_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('public.audit_log_seq_seq', 1, false);


--
-- Name: ledger_entries_seq_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('public.ledger_entries_seq_seq', 1, false);


--
-- Name: access_tokens access_tokens_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.access_tokens
    ADD CONSTRAINT access_tokens_pkey PRIMARY KEY (id);


--
-- Name: access_tokens access_tokens_token_hash_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.access_tokens
    ADD CONSTRAINT access_tokens_token_hash_key UNIQUE (token_hash);


--
-- Name: appeals appeals_action_id_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.appeals
    ADD CONSTRAINT appeals_action_id_key UNIQUE (action_id);


--
-- Name: appeals appeals_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.appeals
    ADD CONSTRAINT appeals_pkey PRIMARY KEY (id);


--
-- Name: attendance_records attendance_records_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.attendance_records
    ADD CONSTRAINT attendance_records_pkey PRIMARY KEY (event_id, user_id);


--
-- Name: attendances attendances_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.attendances
    ADD CONSTRAINT attendances_pkey PRIMARY KEY (event_id, user_id);


--
-- Name: audit_log audit_log_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.audit_log
    ADD CONSTRAINT audit_log_pkey PRIMARY KEY (id);


--
-- Name: blocks blocks_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.blocks
    ADD CONSTRAINT blocks_pkey PRIMARY KEY (blocker_id, blocked_id);


--
-- Name: card_payments card_payments_payment_intent_id_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.card_payments
    ADD CONSTRAINT card_payments_payment_intent_id_key UNIQUE (payment_intent_id);


--
-- Name: card_payments card_payments_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.card_payments
    ADD CONSTRAINT card_payments_pkey PRIMARY KEY (session_id);


--
-- Name: card_refunds card_refunds_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.card_refunds
    ADD CONSTRAINT card_refunds_pkey PRIMARY KEY (id);


--
-- Name: card_refunds card_refunds_refund_id; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.card_refunds
    ADD CONSTRAINT card_refunds_refund_id UNIQUE (refund_id);


--
-- Name: chat_instances chat_instances_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.chat_instances
    ADD CONSTRAINT chat_instances_pkey PRIMARY KEY (instance_id);


--
-- Name: chat_messages chat_messages_event_id_sender_id_client_id_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.chat_messages
    ADD CONSTRAINT chat_messages_event_id_sender_id_client_id_key UNIQUE (room_id, sender_id, client_id);


--
-- Name: chat_messages chat_messages_event_id_seq_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.chat_messages
    ADD CONSTRAINT chat_messages_event_id_seq_key UNIQUE (room_id, seq);


--
-- Name: chat_messages chat_messages_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.chat_messages
    ADD CONSTRAINT chat_messages_pkey PRIMARY KEY (id);


--
-- Name: chat_poll_options chat_poll_options_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.chat_poll_options
    ADD CONSTRAINT chat_poll_options_pkey PRIMARY KEY (room_id, seq, "position");


--
-- Name: chat_poll_votes chat_poll_votes_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.chat_poll_votes
    ADD CONSTRAINT chat_poll_votes_pkey PRIMARY KEY (room_id, seq, "position", user_id);


--
-- Name: chat_polls chat_polls_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.chat_polls
    ADD CONSTRAINT chat_polls_pkey PRIMARY KEY (room_id, seq);


--
-- Name: chat_presence chat_presence_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.chat_presence
    ADD CONSTRAINT chat_presence_pkey PRIMARY KEY (instance_id, user_id, room_id);


--
-- Name: chat_reactions chat_reactions_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.chat_reactions
    ADD CONSTRAINT chat_reactions_pkey PRIMARY KEY (room_id, seq, user_id, emoji);


--
-- Name: chat_reads chat_reads_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.chat_reads
    ADD CONSTRAINT chat_reads_pkey PRIMARY KEY (room_id, user_id);


--
-- Name: conversations conversations_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.conversations
    ADD CONSTRAINT conversations_pkey PRIMARY KEY (room_id);


--
-- Name: conversations conversations_user_low_user_high_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.conversations
    ADD CONSTRAINT conversations_user_low_user_high_key UNIQUE (user_low, user_high);


--
-- Name: data_exports data_exports_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.data_exports
    ADD CONSTRAINT data_exports_pkey PRIMARY KEY (id);


--
-- Name: devices devices_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.devices
    ADD CONSTRAINT devices_pkey PRIMARY KEY (token);


--
-- Name: email_codes email_codes_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.email_codes
    ADD CONSTRAINT email_codes_pkey PRIMARY KEY (user_id, purpose, request);


--
-- Name: event_bans event_bans_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.event_bans
    ADD CONSTRAINT event_bans_pkey PRIMARY KEY (event_id, user_id);


--
-- Name: event_maybes event_maybes_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.event_maybes
    ADD CONSTRAINT event_maybes_pkey PRIMARY KEY (event_id, user_id);


--
-- Name: events events_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.events
    ADD CONSTRAINT events_pkey PRIMARY KEY (id);


--
-- Name: game_results game_results_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.game_results
    ADD CONSTRAINT game_results_pkey PRIMARY KEY (event_id);


--
-- Name: group_bans group_bans_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.group_bans
    ADD CONSTRAINT group_bans_pkey PRIMARY KEY (group_id, user_id);


--
-- Name: group_members group_members_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.group_members
    ADD CONSTRAINT group_members_pkey PRIMARY KEY (group_id, user_id);


--
-- Name: group_requests group_requests_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.group_requests
    ADD CONSTRAINT group_requests_pkey PRIMARY KEY (group_id, user_id);


--
-- Name: group_sports group_sports_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.group_sports
    ADD CONSTRAINT group_sports_pkey PRIMARY KEY (group_id, sport_slug);


--
-- Name: identities identities_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.identities
    ADD CONSTRAINT identities_pkey PRIMARY KEY (provider, subject);


--
-- Name: identities identities_user_id_provider_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.identities
    ADD CONSTRAINT identities_user_id_provider_key UNIQUE (user_id, provider);


--
-- Name: invitations invitations_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.invitations
    ADD CONSTRAINT invitations_pkey PRIMARY KEY (id);


--
-- Name: jobs jobs_dedupe_key_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.jobs
    ADD CONSTRAINT jobs_dedupe_key_key UNIQUE (dedupe_key);


--
-- Name: jobs jobs_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.jobs
    ADD CONSTRAINT jobs_pkey PRIMARY KEY (id);


--
-- Name: known_sign_ins known_sign_ins_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.known_sign_ins
    ADD CONSTRAINT known_sign_ins_pkey PRIMARY KEY (user_id, kind, digest);


--
-- Name: ledger_entries ledger_entries_id_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.ledger_entries
    ADD CONSTRAINT ledger_entries_id_key UNIQUE (id);


--
-- Name: ledger_entries ledger_entries_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.ledger_entries
    ADD CONSTRAINT ledger_entries_pkey PRIMARY KEY (seq);


--
-- Name: ledger_entries ledger_entries_reference_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.ledger_entries
    ADD CONSTRAINT ledger_entries_reference_key UNIQUE (reference);


--
-- Name: level_changes level_changes_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.level_changes
    ADD CONSTRAINT level_changes_pkey PRIMARY KEY (id);


--
-- Name: level_changes level_changes_user_id_event_id_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.level_changes
    ADD CONSTRAINT level_changes_user_id_event_id_key UNIQUE (user_id, event_id);


--
-- Name: media_garbage media_garbage_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.media_garbage
    ADD CONSTRAINT media_garbage_pkey PRIMARY KEY (key);


--
-- Name: media media_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.media
    ADD CONSTRAINT media_pkey PRIMARY KEY (id);


--
-- Name: media_variants media_variants_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.media_variants
    ADD CONSTRAINT media_variants_pkey PRIMARY KEY (media_id, name);


--
-- Name: name_flags name_flags_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.name_flags
    ADD CONSTRAINT name_flags_pkey PRIMARY KEY (user_id);


--
-- Name: network_activity network_activity_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.network_activity
    ADD CONSTRAINT network_activity_pkey PRIMARY KEY (network, kind, minute);


--
-- Name: notifications notifications_job_id_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.notifications
    ADD CONSTRAINT notifications_job_id_key UNIQUE (job_id);


--
-- Name: notifications notifications_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.notifications
    ADD CONSTRAINT notifications_pkey PRIMARY KEY (id);


--
-- Name: payment_claims payment_claims_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.payment_claims
    ADD CONSTRAINT payment_claims_pkey PRIMARY KEY (id);


--
-- Name: payout_accounts payout_accounts_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.payout_accounts
    ADD CONSTRAINT payout_accounts_pkey PRIMARY KEY (user_id);


--
-- Name: payout_accounts payout_accounts_stripe_account_id_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.payout_accounts
    ADD CONSTRAINT payout_accounts_stripe_account_id_key UNIQUE (stripe_account_id);


--
-- Name: push_receipts push_receipts_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.push_receipts
    ADD CONSTRAINT push_receipts_pkey PRIMARY KEY (job_id, device_id);


--
-- Name: registration_blocks registration_blocks_kind_value_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.registration_blocks
    ADD CONSTRAINT registration_blocks_kind_value_key UNIQUE (kind, value);


--
-- Name: registration_blocks registration_blocks_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.registration_blocks
    ADD CONSTRAINT registration_blocks_pkey PRIMARY KEY (id);


--
-- Name: reports reports_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.reports
    ADD CONSTRAINT reports_pkey PRIMARY KEY (id);


--
-- Name: reports reports_reporter_id_target_type_target_id_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.reports
    ADD CONSTRAINT reports_reporter_id_target_type_target_id_key UNIQUE (reporter_id, target_type, target_id);


--
-- Name: rooms rooms_event_id_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.rooms
    ADD CONSTRAINT rooms_event_id_key UNIQUE (event_id);


--
-- Name: rooms rooms_group_id_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.rooms
    ADD CONSTRAINT rooms_group_id_key UNIQUE (group_id);


--
-- Name: rooms rooms_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.rooms
    ADD CONSTRAINT rooms_pkey PRIMARY KEY (id);


--
-- Name: schema_migrations schema_migrations_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.schema_migrations
    ADD CONSTRAINT schema_migrations_pkey PRIMARY KEY (version);


--
-- Name: series_opt_outs series_opt_outs_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.series_opt_outs
    ADD CONSTRAINT series_opt_outs_pkey PRIMARY KEY (series_id, user_id, occurrence_date);


--
-- Name: series series_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.series
    ADD CONSTRAINT series_pkey PRIMARY KEY (id);


--
-- Name: series_regulars series_regulars_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.series_regulars
    ADD CONSTRAINT series_regulars_pkey PRIMARY KEY (series_id, user_id);


--
-- Name: series_skips series_skips_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.series_skips
    ADD CONSTRAINT series_skips_pkey PRIMARY KEY (series_id, occurrence_date);


--
-- Name: server_secrets server_secrets_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.server_secrets
    ADD CONSTRAINT server_secrets_pkey PRIMARY KEY (name);


--
-- Name: sign_in_networks sign_in_networks_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.sign_in_networks
    ADD CONSTRAINT sign_in_networks_pkey PRIMARY KEY (user_id, network);


--
-- Name: sport_groups sport_groups_invite_digest_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.sport_groups
    ADD CONSTRAINT sport_groups_invite_digest_key UNIQUE (invite_digest);


--
-- Name: sport_groups sport_groups_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.sport_groups
    ADD CONSTRAINT sport_groups_pkey PRIMARY KEY (id);


--
-- Name: sports sports_bit_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.sports
    ADD CONSTRAINT sports_bit_key UNIQUE ("bit");


--
-- Name: sports sports_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.sports
    ADD CONSTRAINT sports_pkey PRIMARY KEY (slug);


--
-- Name: stripe_events stripe_events_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.stripe_events
    ADD CONSTRAINT stripe_events_pkey PRIMARY KEY (id);


--
-- Name: substitute_offers substitute_offers_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.substitute_offers
    ADD CONSTRAINT substitute_offers_pkey PRIMARY KEY (request_id, user_id);


--
-- Name: substitute_requests substitute_requests_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.substitute_requests
    ADD CONSTRAINT substitute_requests_pkey PRIMARY KEY (id);


--
-- Name: team_plans team_plans_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.team_plans
    ADD CONSTRAINT team_plans_pkey PRIMARY KEY (event_id);


--
-- Name: team_players team_players_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.team_players
    ADD CONSTRAINT team_players_pkey PRIMARY KEY (event_id, user_id);


--
-- Name: used_tokens used_tokens_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.used_tokens
    ADD CONSTRAINT used_tokens_pkey PRIMARY KEY (digest);


--
-- Name: user_levels user_levels_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.user_levels
    ADD CONSTRAINT user_levels_pkey PRIMARY KEY (user_id, sport_slug);


--
-- Name: user_sports user_sports_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.user_sports
    ADD CONSTRAINT user_sports_pkey PRIMARY KEY (user_id, sport_slug);


--
-- Name: users users_email_normalized_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.users
    ADD CONSTRAINT users_email_normalized_key UNIQUE (email_normalized);


--
-- Name: users users_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.users
    ADD CONSTRAINT users_pkey PRIMARY KEY (id);


--
-- Name: access_tokens_user; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX access_tokens_user ON public.access_tokens USING btree (user_id);


--
-- Name: appeals_open; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX appeals_open ON public.appeals USING btree (status, created_at);


--
-- Name: attendance_records_user; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX attendance_records_user ON public.attendance_records USING btree (user_id);


--
-- Name: attendances_user; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX attendances_user ON public.attendances USING btree (user_id);


--
-- Name: attendances_waitlist; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX attendances_waitlist ON public.attendances USING btree (event_id, status, queue_number);


--
-- Name: audit_log_at; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX audit_log_at ON public.audit_log USING btree (at, id);


--
-- Name: audit_log_seq; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX audit_log_seq ON public.audit_log USING btree (seq);


--
-- Name: audit_log_target; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX audit_log_target ON public.audit_log USING btree (target_id, at);


--
-- Name: blocks_blocked; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX blocks_blocked ON public.blocks USING btree (blocked_id);


--
-- Name: card_payments_event; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX card_payments_event ON public.card_payments USING btree (event_id, user_id);


--
-- Name: card_refunds_intent; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX card_refunds_intent ON public.card_refunds USING btree (payment_intent_id);


--
-- Name: chat_messages_attachment; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX chat_messages_attachment ON public.chat_messages USING btree (attachment_id) WHERE (attachment_id IS NOT NULL);


--
-- Name: chat_messages_changes; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX chat_messages_changes ON public.chat_messages USING btree (room_id, change_seq) WHERE (change_seq > 0);


--
-- Name: chat_poll_votes_user; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX chat_poll_votes_user ON public.chat_poll_votes USING btree (user_id);


--
-- Name: chat_presence_event; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX chat_presence_event ON public.chat_presence USING btree (room_id, user_id);


--
-- Name: conversations_high; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX conversations_high ON public.conversations USING btree (user_high);


--
-- Name: data_exports_user; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX data_exports_user ON public.data_exports USING btree (user_id, requested_at);


--
-- Name: devices_id; Type: INDEX; Schema: public; Owner: -
--

CREATE UNIQUE INDEX devices_id ON public.devices USING btree (id);


--
-- Name: devices_session; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX devices_session ON public.devices USING btree (session_id);


--
-- Name: devices_user; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX devices_user ON public.devices USING btree (user_id);


--
-- Name: devices_user_created; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX devices_user_created ON public.devices USING btree (user_id, created_at);


--
-- Name: email_codes_expiry; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX email_codes_expiry ON public.email_codes USING btree (expires_at);


--
-- Name: event_bans_user; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX event_bans_user ON public.event_bans USING btree (user_id);


--
-- Name: event_maybes_user; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX event_maybes_user ON public.event_maybes USING btree (user_id);


--
-- Name: events_cover; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX events_cover ON public.events USING btree (cover_id) WHERE (cover_id IS NOT NULL);


--
-- Name: events_group; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX events_group ON public.events USING btree (group_id, starts_at) WHERE (group_id IS NOT NULL);


--
-- Name: events_live; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX events_live ON public.events USING btree (status, ends_at, id) INCLUDE (sport_slug, lat, lon, starts_at, version);


--
-- Name: events_occurrence; Type: INDEX; Schema: public; Owner: -
--

CREATE UNIQUE INDEX events_occurrence ON public.events USING btree (series_id, occurrence_date) WHERE (series_id IS NOT NULL);


--
-- Name: events_organiser; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX events_organiser ON public.events USING btree (organiser_id, starts_at);


--
-- Name: events_updated; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX events_updated ON public.events USING btree (updated_at);


--
-- Name: group_members_user; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX group_members_user ON public.group_members USING btree (user_id);


--
-- Name: invitations_invitee; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX invitations_invitee ON public.invitations USING btree (invitee_id, created_at);


--
-- Name: invitations_inviter_created; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX invitations_inviter_created ON public.invitations USING btree (inviter_id, created_at);


--
-- Name: invitations_one_pending; Type: INDEX; Schema: public; Owner: -
--

CREATE UNIQUE INDEX invitations_one_pending ON public.invitations USING btree (event_id, invitee_id) WHERE (status = 'pending'::text);


--
-- Name: jobs_due; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX jobs_due ON public.jobs USING btree (state, run_at);


--
-- Name: jobs_lease; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX jobs_lease ON public.jobs USING btree (state, lease_until);


--
-- Name: jobs_subject; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX jobs_subject ON public.jobs USING btree (subject, kind) WHERE ((subject IS NOT NULL) AND (state = 'queued'::text));


--
-- Name: ledger_entries_event; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX ledger_entries_event ON public.ledger_entries USING btree (event_id, user_id, seq);


--
-- Name: ledger_entries_group; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX ledger_entries_group ON public.ledger_entries USING btree (group_id, user_id, seq);


--
-- Name: ledger_entries_user; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX ledger_entries_user ON public.ledger_entries USING btree (user_id, seq);


--
-- Name: level_changes_user; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX level_changes_user ON public.level_changes USING btree (user_id, sport_slug, at);


--
-- Name: login_failures_age; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX login_failures_age ON public.login_failures USING btree (failed_at);


--
-- Name: login_failures_attempt; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX login_failures_attempt ON public.login_failures USING btree (attempt);


--
-- Name: login_failures_subject; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX login_failures_subject ON public.login_failures USING btree (subject, failed_at);


--
-- Name: media_owner; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX media_owner ON public.media USING btree (owner_id, created_at);


--
-- Name: media_unattached; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX media_unattached ON public.media USING btree (created_at) WHERE (attached_at IS NULL);


--
-- Name: media_upload_log_owner; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX media_upload_log_owner ON public.media_upload_log USING btree (owner_id, created_at);


--
-- Name: media_variants_key; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX media_variants_key ON public.media_variants USING btree (key);


--
-- Name: name_flags_time; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX name_flags_time ON public.name_flags USING btree (flagged_at);


--
-- Name: network_activity_minute; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX network_activity_minute ON public.network_activity USING btree (minute);


--
-- Name: notifications_one_unread; Type: INDEX; Schema: public; Owner: -
--

CREATE UNIQUE INDEX notifications_one_unread ON public.notifications USING btree (user_id, collapse_key) WHERE ((read_at IS NULL) AND (collapse_key IS NOT NULL));


--
-- Name: notifications_user; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX notifications_user ON public.notifications USING btree (user_id, created_at, id);


--
-- Name: payment_claims_event; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX payment_claims_event ON public.payment_claims USING btree (event_id, status, created_at);


--
-- Name: payment_claims_group; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX payment_claims_group ON public.payment_claims USING btree (group_id, status, created_at);


--
-- Name: reports_open; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX reports_open ON public.reports USING btree (status, created_at);


--
-- Name: reports_target; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX reports_target ON public.reports USING btree (target_id, status);


--
-- Name: series_organiser; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX series_organiser ON public.series USING btree (organiser_id);


--
-- Name: sport_groups_cover; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX sport_groups_cover ON public.sport_groups USING btree (cover_id) WHERE (cover_id IS NOT NULL);


--
-- Name: sport_groups_updated; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX sport_groups_updated ON public.sport_groups USING btree (updated_at);


--
-- Name: substitute_offers_user; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX substitute_offers_user ON public.substitute_offers USING btree (user_id);


--
-- Name: substitute_requests_event; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX substitute_requests_event ON public.substitute_requests USING btree (event_id, status);


--
-- Name: substitute_requests_requester; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX substitute_requests_requester ON public.substitute_requests USING btree (requester_id, created_at);


--
-- Name: team_players_user; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX team_players_user ON public.team_players USING btree (user_id);


--
-- Name: used_tokens_expiry; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX used_tokens_expiry ON public.used_tokens USING btree (expires_at);


--
-- Name: users_calendar_feed; Type: INDEX; Schema: public; Owner: -
--

CREATE UNIQUE INDEX users_calendar_feed ON public.users USING btree (calendar_feed) WHERE (calendar_feed IS NOT NULL);


--
-- Name: users_photo; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX users_photo ON public.users USING btree (photo_id) WHERE (photo_id IS NOT NULL);


--
-- Name: audit_log audit_log_no_change; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER audit_log_no_change BEFORE DELETE OR UPDATE ON public.audit_log FOR EACH ROW EXECUTE FUNCTION public.audit_log_append_only();


--
-- Name: audit_log audit_log_no_truncate; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER audit_log_no_truncate BEFORE TRUNCATE ON public.audit_log FOR EACH STATEMENT EXECUTE FUNCTION public.audit_log_append_only();


--
-- Name: ledger_entries ledger_no_change; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER ledger_no_change BEFORE DELETE OR UPDATE ON public.ledger_entries FOR EACH ROW EXECUTE FUNCTION public.ledger_append_only();


--
-- Name: ledger_entries ledger_no_truncate; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER ledger_no_truncate BEFORE TRUNCATE ON public.ledger_entries FOR EACH STATEMENT EXECUTE FUNCTION public.ledger_append_only();


--
-- Name: access_tokens access_tokens_user_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.access_tokens
    ADD CONSTRAINT access_tokens_user_id_fkey FOREIGN KEY (user_id) REFERENCES public.users(id) ON DELETE CASCADE;


--
-- Name: appeals appeals_user_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.appeals
    ADD CONSTRAINT appeals_user_id_fkey FOREIGN KEY (user_id) REFERENCES public.users(id) ON DELETE CASCADE;


--
-- Name: attendance_records attendance_records_event_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.attendance_records
    ADD CONSTRAINT attendance_records_event_id_fkey FOREIGN KEY (event_id) REFERENCES public.events(id) ON DELETE CASCADE;


--
-- Name: attendance_records attendance_records_user_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.attendance_records
    ADD CONSTRAINT attendance_records_user_id_fkey FOREIGN KEY (user_id) REFERENCES public.users(id) ON DELETE CASCADE;


--
-- Name: attendances attendances_event_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.attendances
    ADD CONSTRAINT attendances_event_id_fkey FOREIGN KEY (event_id) REFERENCES public.events(id) ON DELETE CASCADE;


--
-- Name: attendances attendances_user_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.attendances
    ADD CONSTRAINT attendances_user_id_fkey FOREIGN KEY (user_id) REFERENCES public.users(id) ON DELETE CASCADE;


--
-- Name: blocks blocks_blocked_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.blocks
    ADD CONSTRAINT blocks_blocked_id_fkey FOREIGN KEY (blocked_id) REFERENCES public.users(id) ON DELETE CASCADE;


--
-- Name: blocks blocks_blocker_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.blocks
    ADD CONSTRAINT blocks_blocker_id_fkey FOREIGN KEY (blocker_id) REFERENCES public.users(id) ON DELETE CASCADE;


--
-- Name: card_payments card_payments_event_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.card_payments
    ADD CONSTRAINT card_payments_event_id_fkey FOREIGN KEY (event_id) REFERENCES public.events(id);


--
-- Name: card_payments card_payments_user_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.card_payments
    ADD CONSTRAINT card_payments_user_id_fkey FOREIGN KEY (user_id) REFERENCES public.users(id);


--
-- Name: card_refunds card_refunds_event_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.card_refunds
    ADD CONSTRAINT card_refunds_event_id_fkey FOREIGN KEY (event_id) REFERENCES public.events(id);


--
-- Name: card_refunds card_refunds_recorded_by_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.card_refunds
    ADD CONSTRAINT card_refunds_recorded_by_fkey FOREIGN KEY (recorded_by) REFERENCES public.users(id);


--
-- Name: card_refunds card_refunds_user_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.card_refunds
    ADD CONSTRAINT card_refunds_user_id_fkey FOREIGN KEY (user_id) REFERENCES public.users(id);


--
-- Name: chat_messages chat_messages_attachment_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.chat_messages
    ADD CONSTRAINT chat_messages_attachment_id_fkey FOREIGN KEY (attachment_id) REFERENCES public.media(id) ON DELETE SET NULL;


--
-- Name: chat_messages chat_messages_room_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.chat_messages
    ADD CONSTRAINT chat_messages_room_id_fkey FOREIGN KEY (room_id) REFERENCES public.rooms(id) ON DELETE CASCADE;


--
-- Name: chat_messages chat_messages_sender_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.chat_messages
    ADD CONSTRAINT chat_messages_sender_id_fkey FOREIGN KEY (sender_id) REFERENCES public.users(id);


--
-- Name: chat_poll_options chat_poll_options_room_id_seq_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.chat_poll_options
    ADD CONSTRAINT chat_poll_options_room_id_seq_fkey FOREIGN KEY (room_id, seq) REFERENCES public.chat_polls(room_id, seq) ON DELETE CASCADE;


--
-- Name: chat_poll_votes chat_poll_votes_room_id_seq_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.chat_poll_votes
    ADD CONSTRAINT chat_poll_votes_room_id_seq_fkey FOREIGN KEY (room_id, seq) REFERENCES public.chat_polls(room_id, seq) ON DELETE CASCADE;


--
-- Name: chat_poll_votes chat_poll_votes_user_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.chat_poll_votes
    ADD CONSTRAINT chat_poll_votes_user_id_fkey FOREIGN KEY (user_id) REFERENCES public.users(id) ON DELETE CASCADE;


--
-- Name: chat_polls chat_polls_made_event_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.chat_polls
    ADD CONSTRAINT chat_polls_made_event_id_fkey FOREIGN KEY (made_event_id) REFERENCES public.events(id) ON DELETE SET NULL;


--
-- Name: chat_polls chat_polls_made_series_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.chat_polls
    ADD CONSTRAINT chat_polls_made_series_id_fkey FOREIGN KEY (made_series_id) REFERENCES public.series(id) ON DELETE SET NULL;


--
-- Name: chat_polls chat_polls_room_id_seq_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.chat_polls
    ADD CONSTRAINT chat_polls_room_id_seq_fkey FOREIGN KEY (room_id, seq) REFERENCES public.chat_messages(room_id, seq) ON DELETE CASCADE;


--
-- Name: chat_reactions chat_reactions_room_id_seq_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.chat_reactions
    ADD CONSTRAINT chat_reactions_room_id_seq_fkey FOREIGN KEY (room_id, seq) REFERENCES public.chat_messages(room_id, seq) ON DELETE CASCADE;


--
-- Name: chat_reactions chat_reactions_user_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.chat_reactions
    ADD CONSTRAINT chat_reactions_user_id_fkey FOREIGN KEY (user_id) REFERENCES public.users(id) ON DELETE CASCADE;


--
-- Name: chat_reads chat_reads_room_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.chat_reads
    ADD CONSTRAINT chat_reads_room_id_fkey FOREIGN KEY (room_id) REFERENCES public.rooms(id) ON DELETE CASCADE;


--
-- Name: chat_reads chat_reads_user_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.chat_reads
    ADD CONSTRAINT chat_reads_user_id_fkey FOREIGN KEY (user_id) REFERENCES public.users(id) ON DELETE CASCADE;


--
-- Name: conversations conversations_created_by_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.conversations
    ADD CONSTRAINT conversations_created_by_fkey FOREIGN KEY (created_by) REFERENCES public.users(id) ON DELETE CASCADE;


--
-- Name: conversations conversations_requested_by_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.conversations
    ADD CONSTRAINT conversations_requested_by_fkey FOREIGN KEY (requested_by) REFERENCES public.users(id) ON DELETE CASCADE;


--
-- Name: conversations conversations_room_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.conversations
    ADD CONSTRAINT conversations_room_id_fkey FOREIGN KEY (room_id) REFERENCES public.rooms(id) ON DELETE CASCADE;


--
-- Name: conversations conversations_user_high_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.conversations
    ADD CONSTRAINT conversations_user_high_fkey FOREIGN KEY (user_high) REFERENCES public.users(id) ON DELETE CASCADE;


--
-- Name: conversations conversations_user_low_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.conversations
    ADD CONSTRAINT conversations_user_low_fkey FOREIGN KEY (user_low) REFERENCES public.users(id) ON DELETE CASCADE;


--
-- Name: data_exports data_exports_user_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.data_exports
    ADD CONSTRAINT data_exports_user_id_fkey FOREIGN KEY (user_id) REFERENCES public.users(id) ON DELETE CASCADE;


--
-- Name: devices devices_session_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.devices
    ADD CONSTRAINT devices_session_id_fkey FOREIGN KEY (session_id) REFERENCES public.access_tokens(id) ON DELETE CASCADE;


--
-- Name: devices devices_user_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.devices
    ADD CONSTRAINT devices_user_id_fkey FOREIGN KEY (user_id) REFERENCES public.users(id) ON DELETE CASCADE;


--
-- Name: email_codes email_codes_user_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.email_codes
    ADD CONSTRAINT email_codes_user_id_fkey FOREIGN KEY (user_id) REFERENCES public.users(id) ON DELETE CASCADE;


--
-- Name: event_bans event_bans_event_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.event_bans
    ADD CONSTRAINT event_bans_event_id_fkey FOREIGN KEY (event_id) REFERENCES public.events(id) ON DELETE CASCADE;


--
-- Name: event_bans event_bans_user_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.event_bans
    ADD CONSTRAINT event_bans_user_id_fkey FOREIGN KEY (user_id) REFERENCES public.users(id) ON DELETE CASCADE;


--
-- Name: event_maybes event_maybes_event_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.event_maybes
    ADD CONSTRAINT event_maybes_event_id_fkey FOREIGN KEY (event_id) REFERENCES public.events(id) ON DELETE CASCADE;


--
-- Name: event_maybes event_maybes_user_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.event_maybes
    ADD CONSTRAINT event_maybes_user_id_fkey FOREIGN KEY (user_id) REFERENCES public.users(id) ON DELETE CASCADE;


--
-- Name: events events_cover_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.events
    ADD CONSTRAINT events_cover_id_fkey FOREIGN KEY (cover_id) REFERENCES public.media(id) ON DELETE SET NULL;


--
-- Name: events events_group_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.events
    ADD CONSTRAINT events_group_id_fkey FOREIGN KEY (group_id) REFERENCES public.sport_groups(id);


--
-- Name: events events_organiser_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.events
    ADD CONSTRAINT events_organiser_id_fkey FOREIGN KEY (organiser_id) REFERENCES public.users(id);


--
-- Name: events events_series_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.events
    ADD CONSTRAINT events_series_id_fkey FOREIGN KEY (series_id) REFERENCES public.series(id);


--
-- Name: events events_sport_slug_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.events
    ADD CONSTRAINT events_sport_slug_fkey FOREIGN KEY (sport_slug) REFERENCES public.sports(slug);


--
-- Name: game_results game_results_answered_by_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.game_results
    ADD CONSTRAINT game_results_answered_by_fkey FOREIGN KEY (answered_by) REFERENCES public.users(id) ON DELETE SET NULL;


--
-- Name: game_results game_results_entered_by_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.game_results
    ADD CONSTRAINT game_results_entered_by_fkey FOREIGN KEY (entered_by) REFERENCES public.users(id) ON DELETE SET NULL;


--
-- Name: game_results game_results_event_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.game_results
    ADD CONSTRAINT game_results_event_id_fkey FOREIGN KEY (event_id) REFERENCES public.events(id) ON DELETE CASCADE;


--
-- Name: group_bans group_bans_banned_by_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.group_bans
    ADD CONSTRAINT group_bans_banned_by_fkey FOREIGN KEY (banned_by) REFERENCES public.users(id);


--
-- Name: group_bans group_bans_group_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.group_bans
    ADD CONSTRAINT group_bans_group_id_fkey FOREIGN KEY (group_id) REFERENCES public.sport_groups(id) ON DELETE CASCADE;


--
-- Name: group_bans group_bans_user_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.group_bans
    ADD CONSTRAINT group_bans_user_id_fkey FOREIGN KEY (user_id) REFERENCES public.users(id) ON DELETE CASCADE;


--
-- Name: group_members group_members_group_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.group_members
    ADD CONSTRAINT group_members_group_id_fkey FOREIGN KEY (group_id) REFERENCES public.sport_groups(id) ON DELETE CASCADE;


--
-- Name: group_members group_members_user_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.group_members
    ADD CONSTRAINT group_members_user_id_fkey FOREIGN KEY (user_id) REFERENCES public.users(id) ON DELETE CASCADE;


--
-- Name: group_requests group_requests_group_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.group_requests
    ADD CONSTRAINT group_requests_group_id_fkey FOREIGN KEY (group_id) REFERENCES public.sport_groups(id) ON DELETE CASCADE;


--
-- Name: group_requests group_requests_user_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.group_requests
    ADD CONSTRAINT group_requests_user_id_fkey FOREIGN KEY (user_id) REFERENCES public.users(id) ON DELETE CASCADE;


--
-- Name: group_sports group_sports_group_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.group_sports
    ADD CONSTRAINT group_sports_group_id_fkey FOREIGN KEY (group_id) REFERENCES public.sport_groups(id) ON DELETE CASCADE;


--
-- Name: group_sports group_sports_sport_slug_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.group_sports
    ADD CONSTRAINT group_sports_sport_slug_fkey FOREIGN KEY (sport_slug) REFERENCES public.sports(slug);


--
-- Name: identities identities_user_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.identities
    ADD CONSTRAINT identities_user_id_fkey FOREIGN KEY (user_id) REFERENCES public.users(id) ON DELETE CASCADE;


--
-- Name: invitations invitations_event_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.invitations
    ADD CONSTRAINT invitations_event_id_fkey FOREIGN KEY (event_id) REFERENCES public.events(id) ON DELETE CASCADE;


--
-- Name: invitations invitations_invitee_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.invitations
    ADD CONSTRAINT invitations_invitee_id_fkey FOREIGN KEY (invitee_id) REFERENCES public.users(id) ON DELETE CASCADE;


--
-- Name: invitations invitations_inviter_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.invitations
    ADD CONSTRAINT invitations_inviter_id_fkey FOREIGN KEY (inviter_id) REFERENCES public.users(id) ON DELETE CASCADE;


--
-- Name: known_sign_ins known_sign_ins_user_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.known_sign_ins
    ADD CONSTRAINT known_sign_ins_user_id_fkey FOREIGN KEY (user_id) REFERENCES public.users(id) ON DELETE CASCADE;


--
-- Name: ledger_entries ledger_entries_event_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.ledger_entries
    ADD CONSTRAINT ledger_entries_event_id_fkey FOREIGN KEY (event_id) REFERENCES public.events(id);


--
-- Name: ledger_entries ledger_entries_group_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.ledger_entries
    ADD CONSTRAINT ledger_entries_group_id_fkey FOREIGN KEY (group_id) REFERENCES public.sport_groups(id);


--
-- Name: ledger_entries ledger_entries_recorded_by_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.ledger_entries
    ADD CONSTRAINT ledger_entries_recorded_by_fkey FOREIGN KEY (recorded_by) REFERENCES public.users(id);


--
-- Name: ledger_entries ledger_entries_user_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.ledger_entries
    ADD CONSTRAINT ledger_entries_user_id_fkey FOREIGN KEY (user_id) REFERENCES public.users(id);


--
-- Name: level_changes level_changes_event_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.level_changes
    ADD CONSTRAINT level_changes_event_id_fkey FOREIGN KEY (event_id) REFERENCES public.events(id) ON DELETE SET NULL;


--
-- Name: level_changes level_changes_sport_slug_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.level_changes
    ADD CONSTRAINT level_changes_sport_slug_fkey FOREIGN KEY (sport_slug) REFERENCES public.sports(slug);


--
-- Name: level_changes level_changes_user_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.level_changes
    ADD CONSTRAINT level_changes_user_id_fkey FOREIGN KEY (user_id) REFERENCES public.users(id) ON DELETE CASCADE;


--
-- Name: media media_owner_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.media
    ADD CONSTRAINT media_owner_id_fkey FOREIGN KEY (owner_id) REFERENCES public.users(id) ON DELETE CASCADE;


--
-- Name: media_variants media_variants_media_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.media_variants
    ADD CONSTRAINT media_variants_media_id_fkey FOREIGN KEY (media_id) REFERENCES public.media(id) ON DELETE CASCADE;


--
-- Name: name_flags name_flags_user_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.name_flags
    ADD CONSTRAINT name_flags_user_id_fkey FOREIGN KEY (user_id) REFERENCES public.users(id) ON DELETE CASCADE;


--
-- Name: notifications notifications_user_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.notifications
    ADD CONSTRAINT notifications_user_id_fkey FOREIGN KEY (user_id) REFERENCES public.users(id) ON DELETE CASCADE;


--
-- Name: payment_claims payment_claims_decided_by_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.payment_claims
    ADD CONSTRAINT payment_claims_decided_by_fkey FOREIGN KEY (decided_by) REFERENCES public.users(id);


--
-- Name: payment_claims payment_claims_event_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.payment_claims
    ADD CONSTRAINT payment_claims_event_id_fkey FOREIGN KEY (event_id) REFERENCES public.events(id);


--
-- Name: payment_claims payment_claims_group_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.payment_claims
    ADD CONSTRAINT payment_claims_group_id_fkey FOREIGN KEY (group_id) REFERENCES public.sport_groups(id);


--
-- Name: payment_claims payment_claims_user_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.payment_claims
    ADD CONSTRAINT payment_claims_user_id_fkey FOREIGN KEY (user_id) REFERENCES public.users(id);


--
-- Name: payout_accounts payout_accounts_user_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.payout_accounts
    ADD CONSTRAINT payout_accounts_user_id_fkey FOREIGN KEY (user_id) REFERENCES public.users(id);


--
-- Name: registration_blocks registration_blocks_created_by_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.registration_blocks
    ADD CONSTRAINT registration_blocks_created_by_fkey FOREIGN KEY (created_by) REFERENCES public.users(id) ON DELETE SET NULL;


--
-- Name: reports reports_reporter_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.reports
    ADD CONSTRAINT reports_reporter_id_fkey FOREIGN KEY (reporter_id) REFERENCES public.users(id) ON DELETE CASCADE;


--
-- Name: rooms rooms_event_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.rooms
    ADD CONSTRAINT rooms_event_id_fkey FOREIGN KEY (event_id) REFERENCES public.events(id) ON DELETE CASCADE;


--
-- Name: rooms rooms_group_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.rooms
    ADD CONSTRAINT rooms_group_id_fkey FOREIGN KEY (group_id) REFERENCES public.sport_groups(id) ON DELETE CASCADE;


--
-- Name: series series_followed_by_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.series
    ADD CONSTRAINT series_followed_by_fkey FOREIGN KEY (followed_by) REFERENCES public.series(id);


--
-- Name: series_opt_outs series_opt_outs_series_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.series_opt_outs
    ADD CONSTRAINT series_opt_outs_series_id_fkey FOREIGN KEY (series_id) REFERENCES public.series(id) ON DELETE CASCADE;


--
-- Name: series_opt_outs series_opt_outs_user_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.series_opt_outs
    ADD CONSTRAINT series_opt_outs_user_id_fkey FOREIGN KEY (user_id) REFERENCES public.users(id) ON DELETE CASCADE;


--
-- Name: series series_organiser_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.series
    ADD CONSTRAINT series_organiser_id_fkey FOREIGN KEY (organiser_id) REFERENCES public.users(id);


--
-- Name: series_regulars series_regulars_series_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.series_regulars
    ADD CONSTRAINT series_regulars_series_id_fkey FOREIGN KEY (series_id) REFERENCES public.series(id) ON DELETE CASCADE;


--
-- Name: series_regulars series_regulars_user_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.series_regulars
    ADD CONSTRAINT series_regulars_user_id_fkey FOREIGN KEY (user_id) REFERENCES public.users(id) ON DELETE CASCADE;


--
-- Name: series_skips series_skips_series_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.series_skips
    ADD CONSTRAINT series_skips_series_id_fkey FOREIGN KEY (series_id) REFERENCES public.series(id) ON DELETE CASCADE;


--
-- Name: series series_sport_slug_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.series
    ADD CONSTRAINT series_sport_slug_fkey FOREIGN KEY (sport_slug) REFERENCES public.sports(slug);


--
-- Name: sign_in_networks sign_in_networks_user_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.sign_in_networks
    ADD CONSTRAINT sign_in_networks_user_id_fkey FOREIGN KEY (user_id) REFERENCES public.users(id) ON DELETE CASCADE;


--
-- Name: sport_groups sport_groups_cover_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.sport_groups
    ADD CONSTRAINT sport_groups_cover_id_fkey FOREIGN KEY (cover_id) REFERENCES public.media(id) ON DELETE SET NULL;


--
-- Name: sport_groups sport_groups_owner_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.sport_groups
    ADD CONSTRAINT sport_groups_owner_id_fkey FOREIGN KEY (owner_id) REFERENCES public.users(id);


--
-- Name: substitute_offers substitute_offers_request_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.substitute_offers
    ADD CONSTRAINT substitute_offers_request_id_fkey FOREIGN KEY (request_id) REFERENCES public.substitute_requests(id) ON DELETE CASCADE;


--
-- Name: substitute_offers substitute_offers_user_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.substitute_offers
    ADD CONSTRAINT substitute_offers_user_id_fkey FOREIGN KEY (user_id) REFERENCES public.users(id) ON DELETE CASCADE;


--
-- Name: substitute_requests substitute_requests_event_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.substitute_requests
    ADD CONSTRAINT substitute_requests_event_id_fkey FOREIGN KEY (event_id) REFERENCES public.events(id) ON DELETE CASCADE;


--
-- Name: substitute_requests substitute_requests_filled_by_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.substitute_requests
    ADD CONSTRAINT substitute_requests_filled_by_fkey FOREIGN KEY (filled_by) REFERENCES public.users(id) ON DELETE SET NULL;


--
-- Name: substitute_requests substitute_requests_requester_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.substitute_requests
    ADD CONSTRAINT substitute_requests_requester_id_fkey FOREIGN KEY (requester_id) REFERENCES public.users(id) ON DELETE CASCADE;


--
-- Name: team_plans team_plans_event_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.team_plans
    ADD CONSTRAINT team_plans_event_id_fkey FOREIGN KEY (event_id) REFERENCES public.events(id) ON DELETE CASCADE;


--
-- Name: team_players team_players_event_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.team_players
    ADD CONSTRAINT team_players_event_id_fkey FOREIGN KEY (event_id) REFERENCES public.team_plans(event_id) ON DELETE CASCADE;


--
-- Name: team_players team_players_user_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.team_players
    ADD CONSTRAINT team_players_user_id_fkey FOREIGN KEY (user_id) REFERENCES public.users(id) ON DELETE CASCADE;


--
-- Name: user_levels user_levels_sport_slug_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.user_levels
    ADD CONSTRAINT user_levels_sport_slug_fkey FOREIGN KEY (sport_slug) REFERENCES public.sports(slug);


--
-- Name: user_levels user_levels_user_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.user_levels
    ADD CONSTRAINT user_levels_user_id_fkey FOREIGN KEY (user_id) REFERENCES public.users(id) ON DELETE CASCADE;


--
-- Name: user_sports user_sports_sport_slug_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.user_sports
    ADD CONSTRAINT user_sports_sport_slug_fkey FOREIGN KEY (sport_slug) REFERENCES public.sports(slug);


--
-- Name: user_sports user_sports_user_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.user_sports
    ADD CONSTRAINT user_sports_user_id_fkey FOREIGN KEY (user_id) REFERENCES public.users(id) ON DELETE CASCADE;


--
-- Name: users users_photo_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.users
    ADD CONSTRAINT users_photo_id_fkey FOREIGN KEY (photo_id) REFERENCES public.media(id) ON DELETE SET NULL;


--
-- PostgreSQL database dump complete
--


