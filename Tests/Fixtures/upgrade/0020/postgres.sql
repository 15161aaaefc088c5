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
-- Name: attendances; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.attendances (
    event_id uuid NOT NULL,
    user_id uuid NOT NULL,
    status text NOT NULL,
    queue_number integer,
    joined_at timestamp with time zone NOT NULL,
    CONSTRAINT attendances_status_check CHECK ((status = ANY (ARRAY['going'::text, 'waitlisted'::text])))
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
    deleted_at timestamp with time zone
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
    request text DEFAULT ''::text NOT NULL
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
    CONSTRAINT events_status_check CHECK ((status = ANY (ARRAY['active'::text, 'cancelled'::text])))
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
    read_at timestamp with time zone
);


--
-- Name: push_receipts; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.push_receipts (
    job_id uuid NOT NULL,
    device_id uuid NOT NULL
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
    CONSTRAINT reports_status_check CHECK ((status = ANY (ARRAY['open'::text, 'resolved'::text]))),
    CONSTRAINT reports_target_type_check CHECK ((target_type = ANY (ARRAY['user'::text, 'event'::text, 'message'::text])))
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
    CONSTRAINT rooms_kind_check CHECK ((kind = ANY (ARRAY['event'::text, 'conversation'::text])))
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
-- Name: server_secrets; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.server_secrets (
    name text NOT NULL,
    value text NOT NULL
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
-- Name: used_tokens; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.used_tokens (
    digest text NOT NULL,
    expires_at timestamp with time zone NOT NULL
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
    language text DEFAULT 'en'::text NOT NULL
);


--
-- Data for Name: access_tokens; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.access_tokens (id, user_id, token_hash, user_agent, created_at, expires_at, last_used_at, revoked_at) FROM stdin;
693c3471-af0c-4588-bd39-ec40c3ba9f27	81009583-187d-4f38-a63e-17f73c3bccf6	16979ad86862686c747eee729d0693432878a5bb3236afb122d8a37594ddc2b9	Python-urllib/3.11	2026-11-30 12:30:50.05+00	2026-12-30 12:30:50.05+00	2026-11-30 12:30:51.664+00	\N
d86a7da0-009c-4e44-9318-545ba29f9ff3	4a45df90-0b99-47e4-94ca-3b86561f2208	04ae4a3d8dfb8ebf2c0926c10ab446dbbe30603b3d769191ec5666a5b1fd7217	Python-urllib/3.11	2026-11-30 12:30:50.058+00	2026-12-30 12:30:50.058+00	2026-11-30 12:30:51.767999+00	\N
142e8b27-858c-4be4-a9ab-606a93500037	f3b362fc-504a-4f86-9e18-db530850dc68	dc056eecf009c70e917b86ecdfbc3d19d219a0c8a33e618328e0f950979da85c	Python-urllib/3.11	2026-11-30 12:30:50.075+00	2026-12-30 12:30:50.075+00	2026-11-30 12:30:51.967+00	\N
0b4d2230-5227-450b-ae24-6981b1c43b85	d5867f83-2d79-4805-9d82-d186741aeccb	a8b800a1a985e068dd8516fde4bf31fe0f7e075d9a7ca10ac214a1334a3512ba	Python-urllib/3.11	2026-11-30 12:30:50.083+00	2026-12-30 12:30:50.083+00	2026-11-30 12:30:52.073+00	\N
dcf175f5-a144-406a-91bd-fee7790a74bf	c67f4136-ec37-406b-9533-a5e7e4bc207e	2368a61c1384f205dc3fbfd48d761f736bd405e6cd171c3ac6c482e435f9c0fb	Python-urllib/3.11	2026-11-30 12:30:50.038+00	2026-12-30 12:30:50.038+00	2026-11-30 12:30:51.546999+00	\N
c4d81bc7-3730-4862-9afe-09e983724dbe	b3e50a28-8545-4280-87d0-10a834de4120	3d9b7788451329cb42b6735e6129ec59f85a71e1bce282adeb4516fb8d6a973e	Python-urllib/3.11	2026-11-30 12:30:50.066+00	2026-12-30 12:30:50.066+00	2026-11-30 12:30:51.865999+00	\N
\.


--
-- Data for Name: attendances; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.attendances (event_id, user_id, status, queue_number, joined_at) FROM stdin;
0d1ae6d6-4f66-43f6-b676-01d83b45d904	b8003617-4e19-4c89-83ca-bb3d0b121ee1	going	\N	2026-11-30 12:30:49.798+00
66aa0c95-a02d-4b83-9d06-2d5c824248ca	11ecaa10-c2f4-43cb-830f-3f8c6dd122c7	going	\N	2026-11-30 12:30:49.798+00
05f73946-f30f-4f90-b05d-d29f93d623b3	458e51cd-dabc-4735-a526-74f2aff9e21c	going	\N	2026-11-30 12:30:49.798+00
255e34d3-0446-4242-a3d0-71e622a1aaa7	b7043b64-b4e0-4713-9787-42c4681f8152	going	\N	2026-11-30 12:30:49.798+00
5d6f583e-2df7-4775-bfeb-25409ceb7c0c	b8003617-4e19-4c89-83ca-bb3d0b121ee1	going	\N	2026-11-30 12:30:49.798+00
c160ee1f-03c2-4d2d-b9ba-290f1e1bc3af	97028506-9058-45ba-afdd-d9eaf1561757	going	\N	2026-11-30 12:30:49.798+00
ffe7dbce-7c88-4e21-8ac0-b2a13acf53c1	fe8fb9f1-c7f8-4ab3-aca3-d502e1389069	going	\N	2026-11-30 12:30:49.798+00
269c9d49-6a8f-453f-8277-748beac8b794	11ecaa10-c2f4-43cb-830f-3f8c6dd122c7	going	\N	2026-11-30 12:30:49.798+00
b5a3421e-6c60-4714-b751-1a0cdde8d63d	e9b91f3a-331f-48f5-ba9a-0d310162a113	going	\N	2026-11-30 12:30:49.798+00
7abac70f-e5bf-476d-a643-4ccb0f836c7b	544ac49b-fbd9-4787-ab74-957d4b9b58b5	going	\N	2026-11-30 12:30:49.798+00
ad1075dc-c0be-4def-928f-4e9ff0f7e984	b81f511c-d658-4ba5-a5fd-143a8d3ef8d3	going	\N	2026-11-30 12:30:49.798+00
714f4b63-87c0-4bd8-b36e-d2d9b925cc48	87537df7-92ba-4d5a-95e3-5ce7652fe8be	going	\N	2026-11-30 12:30:49.798+00
da6421ae-49a2-410a-84f9-578f3e5b318d	ec4882d3-bc8d-4f21-b785-053a0af957c1	going	\N	2026-11-30 12:30:49.798+00
da9f8a23-3bdd-4a32-9b2c-91e47e914c8e	4eb3454a-df54-43eb-b064-01a324990fdf	going	\N	2026-11-30 12:30:49.798+00
1b01e970-88cb-44d7-849c-63319d53122a	e9b91f3a-331f-48f5-ba9a-0d310162a113	going	\N	2026-11-30 12:30:49.798+00
3581efe2-e5d0-4bfc-94a0-f7053c633825	fd262291-ee7a-4913-bbad-85fdb9069a4d	going	\N	2026-11-30 12:30:49.798+00
27e701ac-b23a-4bbd-99be-04625310fbc6	458e51cd-dabc-4735-a526-74f2aff9e21c	going	\N	2026-11-30 12:30:49.798+00
eb8d9dce-a94c-4627-98fb-bfb8ca167e2a	fe8fb9f1-c7f8-4ab3-aca3-d502e1389069	going	\N	2026-11-30 12:30:49.798+00
93171f73-91af-425d-91ca-57199ea8d881	e9b91f3a-331f-48f5-ba9a-0d310162a113	going	\N	2026-11-30 12:30:49.798+00
c55f76c1-f69d-4e8c-8d50-b9cb5e1619cc	d70d3259-e4e1-4b63-9c66-3cf4d73c4c04	going	\N	2026-11-30 12:30:49.798+00
8bea55ca-77cf-45dc-a397-883d6f00e8ae	d70d3259-e4e1-4b63-9c66-3cf4d73c4c04	going	\N	2026-11-30 12:30:49.798+00
ec126d20-9997-4990-a2c3-8eb27541261d	544ac49b-fbd9-4787-ab74-957d4b9b58b5	going	\N	2026-11-30 12:30:49.798+00
2972af9d-2f8e-4109-b105-3b868d4b0151	ec4882d3-bc8d-4f21-b785-053a0af957c1	going	\N	2026-11-30 12:30:49.798+00
c3c37260-c14f-4dc7-b649-08511a246f35	b81f511c-d658-4ba5-a5fd-143a8d3ef8d3	going	\N	2026-11-30 12:30:49.798+00
e849f2da-cbf3-46ec-b426-682aa1a6b35a	5b9e85d1-3f72-4d2d-a10d-d28948f0d4a4	going	\N	2026-11-30 12:30:49.798+00
241dccd1-6100-49a6-99ba-e6c31ae188c0	4eb3454a-df54-43eb-b064-01a324990fdf	going	\N	2026-11-30 12:30:49.798+00
061a29d5-ffd0-44fb-8872-c1a65b8a0418	544ac49b-fbd9-4787-ab74-957d4b9b58b5	going	\N	2026-11-30 12:30:49.798+00
1138bf35-59d3-4d6c-9079-50f9aa4b270b	b8003617-4e19-4c89-83ca-bb3d0b121ee1	going	\N	2026-11-30 12:30:49.798+00
3bc73bb7-d33c-49a3-8897-481cc2a262ca	3d40b007-2f50-4e27-942c-426ca2cd2e51	going	\N	2026-11-30 12:30:49.798+00
733e5822-ad34-451c-97e5-aa6ae968566e	87537df7-92ba-4d5a-95e3-5ce7652fe8be	going	\N	2026-11-30 12:30:49.798+00
2c9f3dc4-e47a-4542-9868-c107ffaf7fad	c67f4136-ec37-406b-9533-a5e7e4bc207e	going	\N	2026-11-30 12:30:50.098+00
31bf897a-625f-4474-8a40-39b1c247ece7	4a45df90-0b99-47e4-94ca-3b86561f2208	going	\N	2026-11-30 12:30:50.109999+00
d7f6eebe-6e7e-49eb-aa16-53ad1a5b30b0	c67f4136-ec37-406b-9533-a5e7e4bc207e	going	\N	2026-11-30 12:30:50.119+00
2c9f3dc4-e47a-4542-9868-c107ffaf7fad	81009583-187d-4f38-a63e-17f73c3bccf6	going	\N	2026-11-30 12:30:50.128+00
2c9f3dc4-e47a-4542-9868-c107ffaf7fad	4a45df90-0b99-47e4-94ca-3b86561f2208	going	\N	2026-11-30 12:30:50.137+00
2c9f3dc4-e47a-4542-9868-c107ffaf7fad	b3e50a28-8545-4280-87d0-10a834de4120	going	\N	2026-11-30 12:30:50.145+00
2c9f3dc4-e47a-4542-9868-c107ffaf7fad	f3b362fc-504a-4f86-9e18-db530850dc68	going	\N	2026-11-30 12:30:50.154+00
31bf897a-625f-4474-8a40-39b1c247ece7	c67f4136-ec37-406b-9533-a5e7e4bc207e	going	\N	2026-11-30 12:30:50.162+00
31bf897a-625f-4474-8a40-39b1c247ece7	b3e50a28-8545-4280-87d0-10a834de4120	going	\N	2026-11-30 12:30:50.17+00
31bf897a-625f-4474-8a40-39b1c247ece7	f3b362fc-504a-4f86-9e18-db530850dc68	going	\N	2026-11-30 12:30:50.178+00
31bf897a-625f-4474-8a40-39b1c247ece7	d5867f83-2d79-4805-9d82-d186741aeccb	going	\N	2026-11-30 12:30:50.186+00
d7f6eebe-6e7e-49eb-aa16-53ad1a5b30b0	d5867f83-2d79-4805-9d82-d186741aeccb	going	\N	2026-11-30 12:30:50.194+00
\.


--
-- Data for Name: blocks; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.blocks (blocker_id, blocked_id, created_at) FROM stdin;
f3b362fc-504a-4f86-9e18-db530850dc68	d5867f83-2d79-4805-9d82-d186741aeccb	2026-11-30 12:30:50.392999+00
\.


--
-- Data for Name: chat_messages; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.chat_messages (id, room_id, seq, sender_id, client_id, body, created_at, attachment_id, attachment_variants, attachment_width, attachment_height, reply_to_seq, mentions, change_seq, edited_at, deleted_at) FROM stdin;
f7135bc3-1b34-4cc7-85e2-117e6596e01f	2c9f3dc4-e47a-4542-9868-c107ffaf7fad	3	4a45df90-0b99-47e4-94ca-3b86561f2208	f3	football message 3 from Cleo	2026-11-30 12:30:50.247999+00	\N	\N	\N	\N	\N	\N	0	\N	\N
8c9ea261-92ca-41df-9470-5890e69f2480	2c9f3dc4-e47a-4542-9868-c107ffaf7fad	5	b3e50a28-8545-4280-87d0-10a834de4120	f5	football message 5 from Dev	2026-11-30 12:30:50.27+00	\N	\N	\N	\N	\N	\N	0	\N	\N
66b2f1f2-7df6-4d44-9c8b-58208f6ad022	2c9f3dc4-e47a-4542-9868-c107ffaf7fad	6	c67f4136-ec37-406b-9533-a5e7e4bc207e	f6	football message 6 from Ada	2026-11-30 12:30:50.28+00	\N	\N	\N	\N	\N	\N	0	\N	\N
bf1b8f5a-2bd3-4472-a811-e55197cf4670	2c9f3dc4-e47a-4542-9868-c107ffaf7fad	7	f3b362fc-504a-4f86-9e18-db530850dc68	f7	football message 7 from Eli	2026-11-30 12:30:50.290999+00	\N	\N	\N	\N	\N	\N	0	\N	\N
24460b1a-a5d6-4aff-84cb-112a7e1f23c7	2c9f3dc4-e47a-4542-9868-c107ffaf7fad	2	81009583-187d-4f38-a63e-17f73c3bccf6	f2	football message 2 from Bo, edited	2026-11-30 12:30:50.234999+00	\N	\N	\N	\N	\N	\N	1	2026-11-30 12:30:50.301+00	\N
2e049fdd-1034-4e1a-a5c6-ca55556a3328	2c9f3dc4-e47a-4542-9868-c107ffaf7fad	4	81009583-187d-4f38-a63e-17f73c3bccf6	f4		2026-11-30 12:30:50.259+00	\N	\N	\N	\N	\N	\N	2	\N	2026-11-30 12:30:50.313999+00
8c86c720-cea7-45bb-b976-fd227022a731	2c9f3dc4-e47a-4542-9868-c107ffaf7fad	1	c67f4136-ec37-406b-9533-a5e7e4bc207e	f1	football message 1 from Ada	2026-11-30 12:30:50.217+00	\N	\N	\N	\N	\N	\N	3	\N	\N
719e82db-0b61-44d9-b187-8d05ba7d7198	99ab74ca-e8c4-4709-9e70-d21a0bb34c88	1	c67f4136-ec37-406b-9533-a5e7e4bc207e	p1	private 1	2026-11-30 12:30:50.359999+00	\N	\N	\N	\N	\N	\N	0	\N	\N
c1f7b632-c805-48d6-8922-518422f0e20d	99ab74ca-e8c4-4709-9e70-d21a0bb34c88	2	81009583-187d-4f38-a63e-17f73c3bccf6	p2	private 2	2026-11-30 12:30:50.372+00	\N	\N	\N	\N	\N	\N	0	\N	\N
55b43c93-9cfd-4a2b-b86c-2d63b11bef5a	99ab74ca-e8c4-4709-9e70-d21a0bb34c88	3	c67f4136-ec37-406b-9533-a5e7e4bc207e	p3	private 3	2026-11-30 12:30:50.382999+00	\N	\N	\N	\N	\N	\N	0	\N	\N
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
2c9f3dc4-e47a-4542-9868-c107ffaf7fad	1	4a45df90-0b99-47e4-94ca-3b86561f2208	👍	2026-11-30 12:30:50.325+00
\.


--
-- Data for Name: chat_reads; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.chat_reads (room_id, user_id, last_read_seq, updated_at, muted_until) FROM stdin;
2c9f3dc4-e47a-4542-9868-c107ffaf7fad	81009583-187d-4f38-a63e-17f73c3bccf6	5	2026-11-30 12:30:50.338+00	\N
2c9f3dc4-e47a-4542-9868-c107ffaf7fad	b3e50a28-8545-4280-87d0-10a834de4120	0	2026-11-30 12:30:50.345+00	9999-12-31 23:59:59+00
\.


--
-- Data for Name: conversations; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.conversations (room_id, user_low, user_high, created_by, state, requested_by, created_at) FROM stdin;
99ab74ca-e8c4-4709-9e70-d21a0bb34c88	81009583-187d-4f38-a63e-17f73c3bccf6	c67f4136-ec37-406b-9533-a5e7e4bc207e	c67f4136-ec37-406b-9533-a5e7e4bc207e	open	\N	2026-11-30 12:30:50.349999+00
\.


--
-- Data for Name: devices; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.devices (token, user_id, platform, created_at, session_id, id, environment, p256dh, auth) FROM stdin;
\.


--
-- Data for Name: email_codes; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.email_codes (user_id, purpose, digest, tries, expires_at, created_at, request) FROM stdin;
\.


--
-- Data for Name: event_bans; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.event_bans (event_id, user_id, banned_at) FROM stdin;
\.


--
-- Data for Name: events; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.events (id, organiser_id, sport_slug, title, description, address, lat, lon, starts_at, ends_at, capacity, status, going_count, waitlist_count, waitlist_counter, version, created_at, updated_at, cover_id, cover_variants, time_zone, reminders, reminded_at) FROM stdin;
0d1ae6d6-4f66-43f6-b676-01d83b45d904	b8003617-4e19-4c89-83ca-bb3d0b121ee1	running	Beginners welcome: Running	Demo event, seed 7.	\N	41.84158646620403	-87.49187658685034	2026-12-01 09:45:00+00	2026-12-01 11:15:00+00	11	active	0	0	0	1	2026-11-30 12:30:49.798+00	2026-11-30 12:30:49.798+00	\N	\N	UTC	[1440,120]	\N
66aa0c95-a02d-4b83-9d06-2d5c824248ca	11ecaa10-c2f4-43cb-830f-3f8c6dd122c7	baseball	Friendly game: Baseball	Demo event, seed 7.	\N	69.6490639555493	19.095038586369117	2026-12-03 05:00:00+00	2026-12-03 07:30:00+00	40	active	0	0	0	1	2026-11-30 12:30:49.798+00	2026-11-30 12:30:49.798+00	\N	\N	UTC	[1440,120]	\N
05f73946-f30f-4f90-b05d-d29f93d623b3	458e51cd-dabc-4735-a526-74f2aff9e21c	golf	Training run: Golf	Demo event, seed 7.	\N	14.607434175465293	121.12759510342984	2026-12-02 11:15:00+00	2026-12-02 12:15:00+00	31	active	0	0	0	1	2026-11-30 12:30:49.798+00	2026-11-30 12:30:49.798+00	\N	\N	UTC	[1440,120]	\N
255e34d3-0446-4242-a3d0-71e622a1aaa7	b7043b64-b4e0-4713-9787-42c4681f8152	tennis	Beginners welcome: Tennis	Demo event, seed 7.	\N	61.14755305274856	-149.71402487808862	2026-12-08 06:30:00+00	2026-12-08 07:30:00+00	24	active	0	0	0	1	2026-11-30 12:30:49.798+00	2026-11-30 12:30:49.798+00	\N	\N	UTC	[1440,120]	\N
5d6f583e-2df7-4775-bfeb-25409ceb7c0c	b8003617-4e19-4c89-83ca-bb3d0b121ee1	boxing	Weekly match: Boxing	Demo event, seed 7.	\N	59.3249113079298	18.218152222868	2026-12-20 05:00:00+00	2026-12-20 07:00:00+00	15	active	0	0	0	1	2026-11-30 12:30:49.798+00	2026-11-30 12:30:49.798+00	\N	\N	UTC	[1440,120]	\N
c160ee1f-03c2-4d2d-b9ba-290f1e1bc3af	97028506-9058-45ba-afdd-d9eaf1561757	darts	Sunday meetup: Darts	Demo event, seed 7.	\N	35.430877241748554	139.7399623332224	2026-12-10 06:00:00+00	2026-12-10 09:00:00+00	40	active	0	0	0	1	2026-11-30 12:30:49.798+00	2026-11-30 12:30:49.798+00	\N	\N	UTC	[1440,120]	\N
ffe7dbce-7c88-4e21-8ac0-b2a13acf53c1	fe8fb9f1-c7f8-4ab3-aca3-d502e1389069	football	After-work game: Football	Demo event, seed 7.	\N	-1.2208819985877999	36.92740927295424	2026-12-22 16:45:00+00	2026-12-22 18:15:00+00	9	active	0	0	0	1	2026-11-30 12:30:49.798+00	2026-11-30 12:30:49.798+00	\N	\N	UTC	[1440,120]	\N
269c9d49-6a8f-453f-8277-748beac8b794	11ecaa10-c2f4-43cb-830f-3f8c6dd122c7	softball	Beginners welcome: Softball	Demo event, seed 7.	\N	25.224403132601278	55.25708366780854	2026-12-05 18:00:00+00	2026-12-05 19:30:00+00	9	active	0	0	0	1	2026-11-30 12:30:49.798+00	2026-11-30 12:30:49.798+00	\N	\N	UTC	[1440,120]	\N
b5a3421e-6c60-4714-b751-1a0cdde8d63d	e9b91f3a-331f-48f5-ba9a-0d310162a113	squash	Sunday meetup: Squash	Demo event, seed 7.	\N	52.3352033523739	20.98764455556024	2026-12-21 12:30:00+00	2026-12-21 15:00:00+00	20	active	0	0	0	1	2026-11-30 12:30:49.798+00	2026-11-30 12:30:49.798+00	\N	\N	UTC	[1440,120]	\N
7abac70f-e5bf-476d-a643-4ccb0f836c7b	544ac49b-fbd9-4787-ab74-957d4b9b58b5	squash	Friendly game: Squash	Demo event, seed 7.	\N	61.139802267864646	-150.0805540247155	2026-12-21 17:15:00+00	2026-12-21 20:15:00+00	27	active	0	0	0	1	2026-11-30 12:30:49.798+00	2026-11-30 12:30:49.798+00	\N	\N	UTC	[1440,120]	\N
ad1075dc-c0be-4def-928f-4e9ff0f7e984	b81f511c-d658-4ba5-a5fd-143a8d3ef8d3	hockey	Training run: Field hockey	Demo event, seed 7.	\N	19.465641214465673	-99.39250705576838	2026-12-17 00:45:00+00	2026-12-17 03:15:00+00	12	active	0	0	0	1	2026-11-30 12:30:49.798+00	2026-11-30 12:30:49.798+00	\N	\N	UTC	[1440,120]	\N
714f4b63-87c0-4bd8-b36e-d2d9b925cc48	87537df7-92ba-4d5a-95e3-5ce7652fe8be	kayaking	Sunday meetup: Kayaking	Demo event, seed 7.	\N	-6.1149110807071265	106.79785994992	2026-12-13 20:15:00+00	2026-12-13 23:15:00+00	\N	active	0	0	0	1	2026-11-30 12:30:49.798+00	2026-11-30 12:30:49.798+00	\N	\N	UTC	[1440,120]	\N
da6421ae-49a2-410a-84f9-578f3e5b318d	ec4882d3-bc8d-4f21-b785-053a0af957c1	football	Weekly match: Football	Demo event, seed 7.	\N	24.959947266949573	55.332567547198124	2026-11-30 21:45:00+00	2026-12-01 00:15:00+00	\N	active	0	0	0	1	2026-11-30 12:30:49.798+00	2026-11-30 12:30:49.798+00	\N	\N	UTC	[1440,120]	\N
da9f8a23-3bdd-4a32-9b2c-91e47e914c8e	4eb3454a-df54-43eb-b064-01a324990fdf	rowing	Friendly game: Rowing	Demo event, seed 7.	\N	-34.421194648315506	-58.340738178118634	2026-12-11 03:00:00+00	2026-12-11 06:00:00+00	\N	active	0	0	0	1	2026-11-30 12:30:49.798+00	2026-11-30 12:30:49.798+00	\N	\N	UTC	[1440,120]	\N
1b01e970-88cb-44d7-849c-63319d53122a	e9b91f3a-331f-48f5-ba9a-0d310162a113	golf	Sunday meetup: Golf	Demo event, seed 7.	\N	25.704402510952747	-80.1431993724676	2026-12-16 20:15:00+00	2026-12-16 21:15:00+00	\N	active	0	0	0	1	2026-11-30 12:30:49.798+00	2026-11-30 12:30:49.798+00	\N	\N	UTC	[1440,120]	\N
3581efe2-e5d0-4bfc-94a0-f7053c633825	fd262291-ee7a-4913-bbad-85fdb9069a4d	baseball	Sunday meetup: Baseball	Demo event, seed 7.	\N	52.3401240259436	13.931490693186545	2026-12-07 15:00:00+00	2026-12-07 17:00:00+00	\N	active	0	0	0	1	2026-11-30 12:30:49.798+00	2026-11-30 12:30:49.798+00	\N	\N	UTC	[1440,120]	\N
27e701ac-b23a-4bbd-99be-04625310fbc6	458e51cd-dabc-4735-a526-74f2aff9e21c	running	Beginners welcome: Running	Demo event, seed 7.	\N	28.430124414875085	77.38235290466085	2026-12-24 15:30:00+00	2026-12-24 18:30:00+00	\N	active	0	0	0	1	2026-11-30 12:30:49.798+00	2026-11-30 12:30:49.798+00	\N	\N	UTC	[1440,120]	\N
eb8d9dce-a94c-4627-98fb-bfb8ca167e2a	fe8fb9f1-c7f8-4ab3-aca3-d502e1389069	running	Sunday meetup: Running	Demo event, seed 7.	\N	51.44541776748836	0.07570065739228732	2026-12-20 09:45:00+00	2026-12-20 11:15:00+00	24	active	0	0	0	1	2026-11-30 12:30:49.798+00	2026-11-30 12:30:49.798+00	\N	\N	UTC	[1440,120]	\N
93171f73-91af-425d-91ca-57199ea8d881	e9b91f3a-331f-48f5-ba9a-0d310162a113	swimming	Beginners welcome: Swimming	Demo event, seed 7.	\N	61.16478833964049	-150.09418323226757	2026-12-15 04:45:00+00	2026-12-15 05:45:00+00	21	active	0	0	0	1	2026-11-30 12:30:49.798+00	2026-11-30 12:30:49.798+00	\N	\N	UTC	[1440,120]	\N
c55f76c1-f69d-4e8c-8d50-b9cb5e1619cc	d70d3259-e4e1-4b63-9c66-3cf4d73c4c04	softball	Training run: Softball	Demo event, seed 7.	\N	28.55073168434435	77.15604752392593	2026-12-20 00:15:00+00	2026-12-20 03:15:00+00	40	active	0	0	0	1	2026-11-30 12:30:49.798+00	2026-11-30 12:30:49.798+00	\N	\N	UTC	[1440,120]	\N
8bea55ca-77cf-45dc-a397-883d6f00e8ae	d70d3259-e4e1-4b63-9c66-3cf4d73c4c04	boxing	Sunday meetup: Boxing	Demo event, seed 7.	\N	31.11200370149215	121.57746581348897	2026-12-13 11:30:00+00	2026-12-13 12:30:00+00	19	active	0	0	0	1	2026-11-30 12:30:49.798+00	2026-11-30 12:30:49.798+00	\N	\N	UTC	[1440,120]	\N
ec126d20-9997-4990-a2c3-8eb27541261d	544ac49b-fbd9-4787-ab74-957d4b9b58b5	ice-hockey	Friendly game: Ice hockey	Demo event, seed 7.	\N	-38.146216677262615	145.11731373642573	2026-12-12 19:30:00+00	2026-12-12 21:00:00+00	\N	active	0	0	0	1	2026-11-30 12:30:49.798+00	2026-11-30 12:30:49.798+00	\N	\N	UTC	[1440,120]	\N
2972af9d-2f8e-4109-b105-3b868d4b0151	ec4882d3-bc8d-4f21-b785-053a0af957c1	bowling	Friendly game: Bowling	Demo event, seed 7.	\N	49.00856702551624	2.137419962604124	2026-12-20 08:15:00+00	2026-12-20 10:15:00+00	8	active	0	0	0	1	2026-11-30 12:30:49.798+00	2026-11-30 12:30:49.798+00	\N	\N	UTC	[1440,120]	\N
c3c37260-c14f-4dc7-b649-08511a246f35	b81f511c-d658-4ba5-a5fd-143a8d3ef8d3	skiing	After-work game: Skiing	Demo event, seed 7.	\N	34.71937253065765	135.54351218842996	2026-12-21 11:15:00+00	2026-12-21 14:15:00+00	30	active	0	0	0	1	2026-11-30 12:30:49.798+00	2026-11-30 12:30:49.798+00	\N	\N	UTC	[1440,120]	\N
e849f2da-cbf3-46ec-b426-682aa1a6b35a	5b9e85d1-3f72-4d2d-a10d-d28948f0d4a4	rugby	Beginners welcome: Rugby	Demo event, seed 7.	\N	37.646021938291476	-122.54195420040311	2026-12-05 07:30:00+00	2026-12-05 10:30:00+00	\N	active	0	0	0	1	2026-11-30 12:30:49.798+00	2026-11-30 12:30:49.798+00	\N	\N	UTC	[1440,120]	\N
241dccd1-6100-49a6-99ba-e6c31ae188c0	4eb3454a-df54-43eb-b064-01a324990fdf	beach-volleyball	Morning session: Beach volleyball	Demo event, seed 7.	\N	52.36456579243233	21.421384991913687	2026-12-08 06:30:00+00	2026-12-08 09:00:00+00	\N	active	0	0	0	1	2026-11-30 12:30:49.798+00	2026-11-30 12:30:49.798+00	\N	\N	UTC	[1440,120]	\N
061a29d5-ffd0-44fb-8872-c1a65b8a0418	544ac49b-fbd9-4787-ab74-957d4b9b58b5	running	Tournament practice: Running	Demo event, seed 7.	\N	28.70633047505855	76.97354820972636	2026-12-07 11:30:00+00	2026-12-07 13:00:00+00	27	active	0	0	0	1	2026-11-30 12:30:49.798+00	2026-11-30 12:30:49.798+00	\N	\N	UTC	[1440,120]	\N
1138bf35-59d3-4d6c-9079-50f9aa4b270b	b8003617-4e19-4c89-83ca-bb3d0b121ee1	badminton	Beginners welcome: Badminton	Demo event, seed 7.	\N	37.40292573406864	127.23037759542774	2026-12-15 16:30:00+00	2026-12-15 19:30:00+00	35	active	0	0	0	1	2026-11-30 12:30:49.798+00	2026-11-30 12:30:49.798+00	\N	\N	UTC	[1440,120]	\N
3bc73bb7-d33c-49a3-8897-481cc2a262ca	3d40b007-2f50-4e27-942c-426ca2cd2e51	hockey	Beginners welcome: Field hockey	Demo event, seed 7.	\N	69.45125321007917	19.234623557263347	2026-12-12 23:00:00+00	2026-12-13 01:00:00+00	\N	active	0	0	0	1	2026-11-30 12:30:49.798+00	2026-11-30 12:30:49.798+00	\N	\N	UTC	[1440,120]	\N
733e5822-ad34-451c-97e5-aa6ae968566e	87537df7-92ba-4d5a-95e3-5ce7652fe8be	football	After-work game: Football	Demo event, seed 7.	\N	-33.89441858758197	18.610485076010654	2026-12-11 17:30:00+00	2026-12-11 20:30:00+00	\N	active	0	0	0	1	2026-11-30 12:30:49.798+00	2026-11-30 12:30:49.798+00	\N	\N	UTC	[1440,120]	\N
2c9f3dc4-e47a-4542-9868-c107ffaf7fad	c67f4136-ec37-406b-9533-a5e7e4bc207e	football	Five-a-side at Fælled	Five-a-side at Fælled: bring water	\N	55.7	12.57	2026-12-03 12:30:50+00	2026-12-03 14:30:50+00	10	active	4	0	0	5	2026-11-30 12:30:50.098+00	2026-11-30 12:30:50.154+00	\N	\N	UTC	[1440,120]	\N
31bf897a-625f-4474-8a40-39b1c247ece7	4a45df90-0b99-47e4-94ca-3b86561f2208	padel	Padel doubles	Padel doubles: bring water	\N	55.68	12.59	2026-12-05 12:30:50+00	2026-12-05 14:30:50+00	4	active	4	0	0	5	2026-11-30 12:30:50.109999+00	2026-11-30 12:30:50.186+00	\N	\N	UTC	[1440,120]	\N
d7f6eebe-6e7e-49eb-aa16-53ad1a5b30b0	c67f4136-ec37-406b-9533-a5e7e4bc207e	running	Sunday run	Sunday run: bring water	\N	55.67	12.55	2026-12-09 12:30:50+00	2026-12-09 14:30:50+00	\N	active	1	0	0	2	2026-11-30 12:30:50.119+00	2026-11-30 12:30:50.194+00	\N	\N	UTC	[1440,120]	\N
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
d9192d2a-f387-47fd-a898-99c36978e836	d7f6eebe-6e7e-49eb-aa16-53ad1a5b30b0	c67f4136-ec37-406b-9533-a5e7e4bc207e	81009583-187d-4f38-a63e-17f73c3bccf6	pending	2026-11-30 12:30:50.203+00	\N	f
0fab8595-e35a-4547-8105-388293ba85c8	d7f6eebe-6e7e-49eb-aa16-53ad1a5b30b0	c67f4136-ec37-406b-9533-a5e7e4bc207e	4a45df90-0b99-47e4-94ca-3b86561f2208	pending	2026-11-30 12:30:50.203+00	\N	f
\.


--
-- Data for Name: jobs; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.jobs (id, kind, payload, dedupe_key, state, attempts, run_at, lease_until, locked_by, last_error, enqueued_at, finished_at, subject) FROM stdin;
17dc0ac1-eed3-4f04-b7f2-b02aca83df68	reminder_due	{"event_id":"2c9f3dc4-e47a-4542-9868-c107ffaf7fad","minutes":1440,"starts_at":1796301050000}	reminder:2c9f3dc4-e47a-4542-9868-c107ffaf7fad:1440:1796301050000	queued	0	2026-12-02 12:30:50.004+00	\N	\N	\N	2026-11-30 12:30:50.102+00	\N	event:2c9f3dc4-e47a-4542-9868-c107ffaf7fad
b1a54d0d-51f3-45a9-929b-7a1ca465ed5f	reminder_due	{"event_id":"2c9f3dc4-e47a-4542-9868-c107ffaf7fad","minutes":120,"starts_at":1796301050000}	reminder:2c9f3dc4-e47a-4542-9868-c107ffaf7fad:120:1796301050000	queued	0	2026-12-03 10:30:50.004999+00	\N	\N	\N	2026-11-30 12:30:50.102999+00	\N	event:2c9f3dc4-e47a-4542-9868-c107ffaf7fad
419a28f1-42a8-492b-a019-75777b8633ef	reminder_due	{"event_id":"31bf897a-625f-4474-8a40-39b1c247ece7","minutes":1440,"starts_at":1796473850000}	reminder:31bf897a-625f-4474-8a40-39b1c247ece7:1440:1796473850000	queued	0	2026-12-04 12:30:50.003+00	\N	\N	\N	2026-11-30 12:30:50.112999+00	\N	event:31bf897a-625f-4474-8a40-39b1c247ece7
792c727c-0214-4239-b2b0-6f266e8ac514	reminder_due	{"event_id":"31bf897a-625f-4474-8a40-39b1c247ece7","minutes":120,"starts_at":1796473850000}	reminder:31bf897a-625f-4474-8a40-39b1c247ece7:120:1796473850000	queued	0	2026-12-05 10:30:50.004+00	\N	\N	\N	2026-11-30 12:30:50.114+00	\N	event:31bf897a-625f-4474-8a40-39b1c247ece7
44cef861-a2e7-413e-a553-907a356734f1	reminder_due	{"event_id":"d7f6eebe-6e7e-49eb-aa16-53ad1a5b30b0","minutes":1440,"starts_at":1796819450000}	reminder:d7f6eebe-6e7e-49eb-aa16-53ad1a5b30b0:1440:1796819450000	queued	0	2026-12-08 12:30:50.004+00	\N	\N	\N	2026-11-30 12:30:50.122999+00	\N	event:d7f6eebe-6e7e-49eb-aa16-53ad1a5b30b0
4f025cc9-ece7-4a91-a61e-e661ed44e3e6	reminder_due	{"event_id":"d7f6eebe-6e7e-49eb-aa16-53ad1a5b30b0","minutes":120,"starts_at":1796819450000}	reminder:d7f6eebe-6e7e-49eb-aa16-53ad1a5b30b0:120:1796819450000	queued	0	2026-12-09 10:30:50.004+00	\N	\N	\N	2026-11-30 12:30:50.122999+00	\N	event:d7f6eebe-6e7e-49eb-aa16-53ad1a5b30b0
a2befd2e-4813-4833-bdd6-2cfb558ea131	invitation	{"body":"Ada invites you to Sunday run.","data":{"event_id":"d7f6eebe-6e7e-49eb-aa16-53ad1a5b30b0","event_title":"Sunday run","invitation_id":"0fab8595-e35a-4547-8105-388293ba85c8","inviter":{"id":"c67f4136-ec37-406b-9533-a5e7e4bc207e","name":"Ada"},"starts_at":"2026-12-09T12:30:50.000Z"},"kind":"invitation","title":"Invitation: Sunday run","user_id":"4A45DF90-0B99-47E4-94CA-3B86561F2208"}	invitation:0fab8595-e35a-4547-8105-388293ba85c8	done	1	2026-11-30 12:30:50.21+00	\N	d2c787e1-0	\N	2026-11-30 12:30:50.21+00	2026-11-30 12:30:50.221+00	\N
1557f9ac-fad2-4685-9d8e-db877925dbd4	invitation	{"body":"Ada invites you to Sunday run.","data":{"event_id":"d7f6eebe-6e7e-49eb-aa16-53ad1a5b30b0","event_title":"Sunday run","invitation_id":"d9192d2a-f387-47fd-a898-99c36978e836","inviter":{"id":"c67f4136-ec37-406b-9533-a5e7e4bc207e","name":"Ada"},"starts_at":"2026-12-09T12:30:50.000Z"},"kind":"invitation","title":"Invitation: Sunday run","user_id":"81009583-187D-4F38-A63E-17F73C3BCCF6"}	invitation:d9192d2a-f387-47fd-a898-99c36978e836	done	1	2026-11-30 12:30:50.21+00	\N	d2c787e1-0	\N	2026-11-30 12:30:50.21+00	2026-11-30 12:30:50.221+00	\N
fa00b3a4-71ce-4049-bbc6-a5d2a3bc17bc	chat_message	{"body":"Ada: football message 1 from Ada","collapse_key":"chat:2c9f3dc4-e47a-4542-9868-c107ffaf7fad","data":{"event_id":"2c9f3dc4-e47a-4542-9868-c107ffaf7fad","event_title":"Five-a-side at Fælled","room_id":"2c9f3dc4-e47a-4542-9868-c107ffaf7fad","sender":{"id":"c67f4136-ec37-406b-9533-a5e7e4bc207e","name":"Ada"},"seq":1},"kind":"chat_message","title":"Five-a-side at Fælled","user_id":"4A45DF90-0B99-47E4-94CA-3B86561F2208"}	chat_message:2c9f3dc4-e47a-4542-9868-c107ffaf7fad:4a45df90-0b99-47e4-94ca-3b86561f2208	queued	0	2026-11-30 12:30:52.227+00	\N	\N	\N	2026-11-30 12:30:50.227+00	\N	\N
e7a76d3c-f056-4fd5-982b-574bc3ac67c8	chat_message	{"body":"Ada: football message 1 from Ada","collapse_key":"chat:2c9f3dc4-e47a-4542-9868-c107ffaf7fad","data":{"event_id":"2c9f3dc4-e47a-4542-9868-c107ffaf7fad","event_title":"Five-a-side at Fælled","room_id":"2c9f3dc4-e47a-4542-9868-c107ffaf7fad","sender":{"id":"c67f4136-ec37-406b-9533-a5e7e4bc207e","name":"Ada"},"seq":1},"kind":"chat_message","title":"Five-a-side at Fælled","user_id":"81009583-187D-4F38-A63E-17F73C3BCCF6"}	chat_message:2c9f3dc4-e47a-4542-9868-c107ffaf7fad:81009583-187d-4f38-a63e-17f73c3bccf6	queued	0	2026-11-30 12:30:52.227999+00	\N	\N	\N	2026-11-30 12:30:50.227999+00	\N	\N
f5442735-570b-49bf-80bc-c952527b6311	chat_message	{"body":"Ada: football message 1 from Ada","collapse_key":"chat:2c9f3dc4-e47a-4542-9868-c107ffaf7fad","data":{"event_id":"2c9f3dc4-e47a-4542-9868-c107ffaf7fad","event_title":"Five-a-side at Fælled","room_id":"2c9f3dc4-e47a-4542-9868-c107ffaf7fad","sender":{"id":"c67f4136-ec37-406b-9533-a5e7e4bc207e","name":"Ada"},"seq":1},"kind":"chat_message","title":"Five-a-side at Fælled","user_id":"B3E50A28-8545-4280-87D0-10A834DE4120"}	chat_message:2c9f3dc4-e47a-4542-9868-c107ffaf7fad:b3e50a28-8545-4280-87d0-10a834de4120	queued	0	2026-11-30 12:30:52.229+00	\N	\N	\N	2026-11-30 12:30:50.229+00	\N	\N
6d7b0240-7159-44ee-a22c-ab9c16fd5d24	chat_message	{"body":"Ada: football message 1 from Ada","collapse_key":"chat:2c9f3dc4-e47a-4542-9868-c107ffaf7fad","data":{"event_id":"2c9f3dc4-e47a-4542-9868-c107ffaf7fad","event_title":"Five-a-side at Fælled","room_id":"2c9f3dc4-e47a-4542-9868-c107ffaf7fad","sender":{"id":"c67f4136-ec37-406b-9533-a5e7e4bc207e","name":"Ada"},"seq":1},"kind":"chat_message","title":"Five-a-side at Fælled","user_id":"F3B362FC-504A-4F86-9E18-DB530850DC68"}	chat_message:2c9f3dc4-e47a-4542-9868-c107ffaf7fad:f3b362fc-504a-4f86-9e18-db530850dc68	queued	0	2026-11-30 12:30:52.229+00	\N	\N	\N	2026-11-30 12:30:50.229+00	\N	\N
c4f3db63-8075-49a5-917f-c1f8a614065f	chat_message	{"body":"Bo: football message 2 from Bo, edited","collapse_key":"chat:2c9f3dc4-e47a-4542-9868-c107ffaf7fad","data":{"event_id":"2c9f3dc4-e47a-4542-9868-c107ffaf7fad","event_title":"Five-a-side at Fælled","room_id":"2c9f3dc4-e47a-4542-9868-c107ffaf7fad","sender":{"id":"81009583-187d-4f38-a63e-17f73c3bccf6","name":"Bo"},"seq":2},"kind":"chat_message","title":"Five-a-side at Fælled","user_id":"C67F4136-EC37-406B-9533-A5E7E4BC207E"}	chat_message:2c9f3dc4-e47a-4542-9868-c107ffaf7fad:c67f4136-ec37-406b-9533-a5e7e4bc207e	queued	0	2026-11-30 12:30:52.242+00	\N	\N	\N	2026-11-30 12:30:50.242+00	\N	\N
80bb6c33-6bfc-474f-a383-fe8552da74ef	chat_message	{"body":"Ada: private 1","collapse_key":"chat:99ab74ca-e8c4-4709-9e70-d21a0bb34c88","data":{"room_id":"99ab74ca-e8c4-4709-9e70-d21a0bb34c88","sender":{"id":"c67f4136-ec37-406b-9533-a5e7e4bc207e","name":"Ada"},"seq":1},"kind":"chat_message","title":"Ada","user_id":"81009583-187D-4F38-A63E-17F73C3BCCF6"}	chat_message:99ab74ca-e8c4-4709-9e70-d21a0bb34c88:81009583-187d-4f38-a63e-17f73c3bccf6	queued	0	2026-11-30 12:30:52.365999+00	\N	\N	\N	2026-11-30 12:30:50.365999+00	\N	\N
df87f540-902c-46ea-97db-e517ad1a2866	chat_message	{"body":"Bo: private 2","collapse_key":"chat:99ab74ca-e8c4-4709-9e70-d21a0bb34c88","data":{"room_id":"99ab74ca-e8c4-4709-9e70-d21a0bb34c88","sender":{"id":"81009583-187d-4f38-a63e-17f73c3bccf6","name":"Bo"},"seq":2},"kind":"chat_message","title":"Bo","user_id":"C67F4136-EC37-406B-9533-A5E7E4BC207E"}	chat_message:99ab74ca-e8c4-4709-9e70-d21a0bb34c88:c67f4136-ec37-406b-9533-a5e7e4bc207e	queued	0	2026-11-30 12:30:52.378+00	\N	\N	\N	2026-11-30 12:30:50.378+00	\N	\N
\.


--
-- Data for Name: known_sign_ins; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.known_sign_ins (user_id, kind, digest, last_used_at) FROM stdin;
c67f4136-ec37-406b-9533-a5e7e4bc207e	device	c0163997c5fd0146aaa695c9963211b4d10469ef7c79e53aa776253bf2dcfd6e	2026-11-30 12:30:50.038+00
c67f4136-ec37-406b-9533-a5e7e4bc207e	address	5cb01652e9d4c3a822628b8cb5cad545ebe438dfbcb8533942aea3079556bb53	2026-11-30 12:30:50.038+00
81009583-187d-4f38-a63e-17f73c3bccf6	device	748c5bbf8c8c0603013d84c2063fe30a0b6101d1c8c4a89cce196368f14782ae	2026-11-30 12:30:50.05+00
81009583-187d-4f38-a63e-17f73c3bccf6	address	5cb01652e9d4c3a822628b8cb5cad545ebe438dfbcb8533942aea3079556bb53	2026-11-30 12:30:50.05+00
4a45df90-0b99-47e4-94ca-3b86561f2208	device	d8d36be68ab815b2a169c1b93ff16742f3fee5cd77d34e6a6ae581b7cf694abe	2026-11-30 12:30:50.058+00
4a45df90-0b99-47e4-94ca-3b86561f2208	address	5cb01652e9d4c3a822628b8cb5cad545ebe438dfbcb8533942aea3079556bb53	2026-11-30 12:30:50.058+00
b3e50a28-8545-4280-87d0-10a834de4120	device	00e76be56c78ebc96631fd011e8899bdb418ee603f1595f560a4a765ccb55d26	2026-11-30 12:30:50.066+00
b3e50a28-8545-4280-87d0-10a834de4120	address	5cb01652e9d4c3a822628b8cb5cad545ebe438dfbcb8533942aea3079556bb53	2026-11-30 12:30:50.066+00
f3b362fc-504a-4f86-9e18-db530850dc68	device	f9d2b7ea870b38dbe10d1424141e7dd7faeb84aa9971ac721225270eb910ad45	2026-11-30 12:30:50.075+00
f3b362fc-504a-4f86-9e18-db530850dc68	address	5cb01652e9d4c3a822628b8cb5cad545ebe438dfbcb8533942aea3079556bb53	2026-11-30 12:30:50.075+00
d5867f83-2d79-4805-9d82-d186741aeccb	device	3a41d55c75399ba808f450ea4920d39e8d467cbce87595094bd1f5df87d79574	2026-11-30 12:30:50.083+00
d5867f83-2d79-4805-9d82-d186741aeccb	address	5cb01652e9d4c3a822628b8cb5cad545ebe438dfbcb8533942aea3079556bb53	2026-11-30 12:30:50.083+00
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
-- Data for Name: notifications; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.notifications (id, user_id, kind, data, job_id, collapse_key, created_at, read_at) FROM stdin;
de544b0e-394a-4657-aae2-ea11f6c30671	4a45df90-0b99-47e4-94ca-3b86561f2208	invitation	{"event_id":"d7f6eebe-6e7e-49eb-aa16-53ad1a5b30b0","event_title":"Sunday run","invitation_id":"0fab8595-e35a-4547-8105-388293ba85c8","inviter":{"id":"c67f4136-ec37-406b-9533-a5e7e4bc207e","name":"Ada"},"starts_at":"2026-12-09T12:30:50.000Z"}	a2befd2e-4813-4833-bdd6-2cfb558ea131	\N	2026-11-30 12:30:50.216+00	\N
3ca182b8-48f2-4b3c-87d8-bd5896687773	81009583-187d-4f38-a63e-17f73c3bccf6	invitation	{"event_id":"d7f6eebe-6e7e-49eb-aa16-53ad1a5b30b0","event_title":"Sunday run","invitation_id":"d9192d2a-f387-47fd-a898-99c36978e836","inviter":{"id":"c67f4136-ec37-406b-9533-a5e7e4bc207e","name":"Ada"},"starts_at":"2026-12-09T12:30:50.000Z"}	1557f9ac-fad2-4685-9d8e-db877925dbd4	\N	2026-11-30 12:30:50.216+00	\N
\.


--
-- Data for Name: push_receipts; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.push_receipts (job_id, device_id) FROM stdin;
\.


--
-- Data for Name: reports; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.reports (id, reporter_id, target_type, target_id, reason, details, status, created_at, content) FROM stdin;
\.


--
-- Data for Name: rooms; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.rooms (id, kind, event_id, last_message_seq, last_change_seq, last_activity_at, created_at) FROM stdin;
0d1ae6d6-4f66-43f6-b676-01d83b45d904	event	0d1ae6d6-4f66-43f6-b676-01d83b45d904	0	0	2026-11-30 12:30:49.798+00	2026-11-30 12:30:49.798+00
66aa0c95-a02d-4b83-9d06-2d5c824248ca	event	66aa0c95-a02d-4b83-9d06-2d5c824248ca	0	0	2026-11-30 12:30:49.798+00	2026-11-30 12:30:49.798+00
05f73946-f30f-4f90-b05d-d29f93d623b3	event	05f73946-f30f-4f90-b05d-d29f93d623b3	0	0	2026-11-30 12:30:49.798+00	2026-11-30 12:30:49.798+00
255e34d3-0446-4242-a3d0-71e622a1aaa7	event	255e34d3-0446-4242-a3d0-71e622a1aaa7	0	0	2026-11-30 12:30:49.798+00	2026-11-30 12:30:49.798+00
5d6f583e-2df7-4775-bfeb-25409ceb7c0c	event	5d6f583e-2df7-4775-bfeb-25409ceb7c0c	0	0	2026-11-30 12:30:49.798+00	2026-11-30 12:30:49.798+00
c160ee1f-03c2-4d2d-b9ba-290f1e1bc3af	event	c160ee1f-03c2-4d2d-b9ba-290f1e1bc3af	0	0	2026-11-30 12:30:49.798+00	2026-11-30 12:30:49.798+00
ffe7dbce-7c88-4e21-8ac0-b2a13acf53c1	event	ffe7dbce-7c88-4e21-8ac0-b2a13acf53c1	0	0	2026-11-30 12:30:49.798+00	2026-11-30 12:30:49.798+00
269c9d49-6a8f-453f-8277-748beac8b794	event	269c9d49-6a8f-453f-8277-748beac8b794	0	0	2026-11-30 12:30:49.798+00	2026-11-30 12:30:49.798+00
b5a3421e-6c60-4714-b751-1a0cdde8d63d	event	b5a3421e-6c60-4714-b751-1a0cdde8d63d	0	0	2026-11-30 12:30:49.798+00	2026-11-30 12:30:49.798+00
7abac70f-e5bf-476d-a643-4ccb0f836c7b	event	7abac70f-e5bf-476d-a643-4ccb0f836c7b	0	0	2026-11-30 12:30:49.798+00	2026-11-30 12:30:49.798+00
ad1075dc-c0be-4def-928f-4e9ff0f7e984	event	ad1075dc-c0be-4def-928f-4e9ff0f7e984	0	0	2026-11-30 12:30:49.798+00	2026-11-30 12:30:49.798+00
714f4b63-87c0-4bd8-b36e-d2d9b925cc48	event	714f4b63-87c0-4bd8-b36e-d2d9b925cc48	0	0	2026-11-30 12:30:49.798+00	2026-11-30 12:30:49.798+00
da6421ae-49a2-410a-84f9-578f3e5b318d	event	da6421ae-49a2-410a-84f9-578f3e5b318d	0	0	2026-11-30 12:30:49.798+00	2026-11-30 12:30:49.798+00
da9f8a23-3bdd-4a32-9b2c-91e47e914c8e	event	da9f8a23-3bdd-4a32-9b2c-91e47e914c8e	0	0	2026-11-30 12:30:49.798+00	2026-11-30 12:30:49.798+00
1b01e970-88cb-44d7-849c-63319d53122a	event	1b01e970-88cb-44d7-849c-63319d53122a	0	0	2026-11-30 12:30:49.798+00	2026-11-30 12:30:49.798+00
3581efe2-e5d0-4bfc-94a0-f7053c633825	event	3581efe2-e5d0-4bfc-94a0-f7053c633825	0	0	2026-11-30 12:30:49.798+00	2026-11-30 12:30:49.798+00
27e701ac-b23a-4bbd-99be-04625310fbc6	event	27e701ac-b23a-4bbd-99be-04625310fbc6	0	0	2026-11-30 12:30:49.798+00	2026-11-30 12:30:49.798+00
eb8d9dce-a94c-4627-98fb-bfb8ca167e2a	event	eb8d9dce-a94c-4627-98fb-bfb8ca167e2a	0	0	2026-11-30 12:30:49.798+00	2026-11-30 12:30:49.798+00
93171f73-91af-425d-91ca-57199ea8d881	event	93171f73-91af-425d-91ca-57199ea8d881	0	0	2026-11-30 12:30:49.798+00	2026-11-30 12:30:49.798+00
c55f76c1-f69d-4e8c-8d50-b9cb5e1619cc	event	c55f76c1-f69d-4e8c-8d50-b9cb5e1619cc	0	0	2026-11-30 12:30:49.798+00	2026-11-30 12:30:49.798+00
8bea55ca-77cf-45dc-a397-883d6f00e8ae	event	8bea55ca-77cf-45dc-a397-883d6f00e8ae	0	0	2026-11-30 12:30:49.798+00	2026-11-30 12:30:49.798+00
ec126d20-9997-4990-a2c3-8eb27541261d	event	ec126d20-9997-4990-a2c3-8eb27541261d	0	0	2026-11-30 12:30:49.798+00	2026-11-30 12:30:49.798+00
2972af9d-2f8e-4109-b105-3b868d4b0151	event	2972af9d-2f8e-4109-b105-3b868d4b0151	0	0	2026-11-30 12:30:49.798+00	2026-11-30 12:30:49.798+00
c3c37260-c14f-4dc7-b649-08511a246f35	event	c3c37260-c14f-4dc7-b649-08511a246f35	0	0	2026-11-30 12:30:49.798+00	2026-11-30 12:30:49.798+00
e849f2da-cbf3-46ec-b426-682aa1a6b35a	event	e849f2da-cbf3-46ec-b426-682aa1a6b35a	0	0	2026-11-30 12:30:49.798+00	2026-11-30 12:30:49.798+00
241dccd1-6100-49a6-99ba-e6c31ae188c0	event	241dccd1-6100-49a6-99ba-e6c31ae188c0	0	0	2026-11-30 12:30:49.798+00	2026-11-30 12:30:49.798+00
061a29d5-ffd0-44fb-8872-c1a65b8a0418	event	061a29d5-ffd0-44fb-8872-c1a65b8a0418	0	0	2026-11-30 12:30:49.798+00	2026-11-30 12:30:49.798+00
1138bf35-59d3-4d6c-9079-50f9aa4b270b	event	1138bf35-59d3-4d6c-9079-50f9aa4b270b	0	0	2026-11-30 12:30:49.798+00	2026-11-30 12:30:49.798+00
3bc73bb7-d33c-49a3-8897-481cc2a262ca	event	3bc73bb7-d33c-49a3-8897-481cc2a262ca	0	0	2026-11-30 12:30:49.798+00	2026-11-30 12:30:49.798+00
733e5822-ad34-451c-97e5-aa6ae968566e	event	733e5822-ad34-451c-97e5-aa6ae968566e	0	0	2026-11-30 12:30:49.798+00	2026-11-30 12:30:49.798+00
31bf897a-625f-4474-8a40-39b1c247ece7	event	31bf897a-625f-4474-8a40-39b1c247ece7	0	0	2026-11-30 12:30:50.109999+00	2026-11-30 12:30:50.109999+00
d7f6eebe-6e7e-49eb-aa16-53ad1a5b30b0	event	d7f6eebe-6e7e-49eb-aa16-53ad1a5b30b0	0	0	2026-11-30 12:30:50.119+00	2026-11-30 12:30:50.119+00
2c9f3dc4-e47a-4542-9868-c107ffaf7fad	event	2c9f3dc4-e47a-4542-9868-c107ffaf7fad	7	3	2026-11-30 12:30:50.290999+00	2026-11-30 12:30:50.098+00
99ab74ca-e8c4-4709-9e70-d21a0bb34c88	conversation	\N	3	0	2026-11-30 12:30:50.382999+00	2026-11-30 12:30:50.349999+00
\.


--
-- Data for Name: schema_migrations; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.schema_migrations (version, name, checksum, applied_at) FROM stdin;
1	accounts	1c3f1cad0202d794d517211040b1770b9186bc7b53a3759b8fedb616f18adbe4	2026-11-30T12:30:49Z
2	events	aff29501aec8729835844c9cb040d82246b8e827b9845c1869f1bfe6d0127d3c	2026-11-30T12:30:49Z
3	jobs_notifications	c81eb4be6f08eedec5227b1930119f79bb67176221ac03b1b58080036216d668	2026-11-30T12:30:49Z
4	chat	3a48fb97d54351e51b192909feda9f538a1588eec6ee641355250a78c213f49c	2026-11-30T12:30:49Z
5	safety	259ea05c764ad646c31e9032a5b5070a183b905042cbd7849cfd48bcc0d42a93	2026-11-30T12:30:49Z
6	events_live_order	59d2be1c7724cbed8bfa318c868f7875af617138519f31a7ce5f01d7345f27f9	2026-11-30T12:30:49Z
7	events_live_covering	618d663397ee91f244805e74f3767ccdb96f8e2992fa3f161971dc27f7294bfc	2026-11-30T12:30:49Z
8	trust	a5f00475b764470667297409c99a46201821a7dd77ccecc8314cdb25824ee168	2026-11-30T12:30:49Z
9	settled_attempts	bb6391827137a8fb36ca1f6952754cfcfd9904dd7ebd8747d5a22cbe102f7527	2026-11-30T12:30:49Z
10	media	37d1fc43040f7025a8c31445f1e63eb4398ac9f6665a45b36ad6c35fbc05660a	2026-11-30T12:30:49Z
11	chat_attachments	e570881feed2107064e32e46c34664bafcce90a68e3797f7da62146afad3eaf6	2026-11-30T12:30:49Z
12	identities	4d322f25d7a35e7c76f26e18efd592506fd24d39328a491d9eccfd3678ec2ddd	2026-11-30T12:30:49Z
13	email_codes	a3ee4ad4ab82d5dc271c34e860e8125ee649bafd78019e4f43bd381eeced1c79	2026-11-30T12:30:49Z
14	push_channels	096893f23400cb7ba9e2ffd7b1709452c93372782d7ac49f0726ccc4fb4580d7	2026-11-30T12:30:49Z
15	rooms	479ca87e46cbbac681ef7f0e92608e21667667379440ea215378735d65af9e03	2026-11-30T12:30:49Z
16	event_bans	59bda86d881ff1c207705a12735ddf59455722d3cb62e55a50c9257ffac2f59c	2026-11-30T12:30:49Z
17	known_sign_ins	43f89b0a0c6d16c417cef8da252ca19bb1bd338c1b478e233f39f8649c7af934	2026-11-30T12:30:49Z
18	name_flags	ea87164e4e3c8c79c0091679aee2e8e5739299b25b48ec15a15613d8b428747b	2026-11-30T12:30:49Z
19	reminders	4e9605889d010a3cfc20f6a10b850b68cf07983ffa4a1e2179524cf5fb8c93ed	2026-11-30T12:30:49Z
20	reset_requests	2f689e1f8156b4bb07a85c220937773df85b30f36cc3012797eff7d29c44d085	2026-11-30T12:30:49Z
\.


--
-- Data for Name: server_secrets; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.server_secrets (name, value) FROM stdin;
media_url_key	8099dd6bb0f29f797c9182b0724b2a9a4a3d5b3d2c3a248a4a6716117c22e3a9
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
-- Data for Name: used_tokens; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.used_tokens (digest, expires_at) FROM stdin;
\.


--
-- Data for Name: user_sports; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.user_sports (user_id, sport_slug) FROM stdin;
d70d3259-e4e1-4b63-9c66-3cf4d73c4c04	chess
4eb3454a-df54-43eb-b064-01a324990fdf	handball
4eb3454a-df54-43eb-b064-01a324990fdf	petanque
e9b91f3a-331f-48f5-ba9a-0d310162a113	running
e9b91f3a-331f-48f5-ba9a-0d310162a113	darts
e9b91f3a-331f-48f5-ba9a-0d310162a113	padel
5b9e85d1-3f72-4d2d-a10d-d28948f0d4a4	rowing
5b9e85d1-3f72-4d2d-a10d-d28948f0d4a4	crossfit
5b9e85d1-3f72-4d2d-a10d-d28948f0d4a4	running
e6f46135-856d-4740-abc1-0ebb0f51d292	crossfit
e6f46135-856d-4740-abc1-0ebb0f51d292	ice-hockey
11ecaa10-c2f4-43cb-830f-3f8c6dd122c7	crossfit
544ac49b-fbd9-4787-ab74-957d4b9b58b5	handball
544ac49b-fbd9-4787-ab74-957d4b9b58b5	running
544ac49b-fbd9-4787-ab74-957d4b9b58b5	hiking
544ac49b-fbd9-4787-ab74-957d4b9b58b5	chess
92b099ae-d0a3-4ff5-8314-397efc7913b2	skiing
92b099ae-d0a3-4ff5-8314-397efc7913b2	futsal
b81f511c-d658-4ba5-a5fd-143a8d3ef8d3	water-polo
b81f511c-d658-4ba5-a5fd-143a8d3ef8d3	crossfit
c30119d9-b041-4657-9c95-434e3e1cf68b	water-polo
c30119d9-b041-4657-9c95-434e3e1cf68b	mountain-biking
1813664d-dae8-4d44-9034-2f3bf4be4ab2	kitesurfing
1813664d-dae8-4d44-9034-2f3bf4be4ab2	sailing
b7043b64-b4e0-4713-9787-42c4681f8152	inline-skating
b7043b64-b4e0-4713-9787-42c4681f8152	padel
b7043b64-b4e0-4713-9787-42c4681f8152	golf
b7043b64-b4e0-4713-9787-42c4681f8152	hiking
fd262291-ee7a-4913-bbad-85fdb9069a4d	football
fd262291-ee7a-4913-bbad-85fdb9069a4d	pilates
fd262291-ee7a-4913-bbad-85fdb9069a4d	softball
fd262291-ee7a-4913-bbad-85fdb9069a4d	running
87537df7-92ba-4d5a-95e3-5ce7652fe8be	table-tennis
87537df7-92ba-4d5a-95e3-5ce7652fe8be	kitesurfing
87537df7-92ba-4d5a-95e3-5ce7652fe8be	ice-skating
87537df7-92ba-4d5a-95e3-5ce7652fe8be	dance
b8003617-4e19-4c89-83ca-bb3d0b121ee1	yoga
b8003617-4e19-4c89-83ca-bb3d0b121ee1	rugby
ec4882d3-bc8d-4f21-b785-053a0af957c1	crossfit
fe8fb9f1-c7f8-4ab3-aca3-d502e1389069	bowling
fe8fb9f1-c7f8-4ab3-aca3-d502e1389069	triathlon
fe8fb9f1-c7f8-4ab3-aca3-d502e1389069	kayaking
97028506-9058-45ba-afdd-d9eaf1561757	baseball
97028506-9058-45ba-afdd-d9eaf1561757	climbing
97028506-9058-45ba-afdd-d9eaf1561757	softball
458e51cd-dabc-4735-a526-74f2aff9e21c	ultimate-frisbee
3d40b007-2f50-4e27-942c-426ca2cd2e51	cricket
\.


--
-- Data for Name: users; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.users (id, email, email_normalized, name, password_hash, bio, lat, lon, discoverable, version, created_at, updated_at, deleted_at, photo_id, photo_variants, email_verified, reminders, language) FROM stdin;
d70d3259-e4e1-4b63-9c66-3cf4d73c4c04	demo-7-0@sportlook.demo	demo-7-0@sportlook.demo	Xavi P	$2b$04$mLM0amwLkNBJXwyk1lGAD.9yojlYSizrkOZBtCJSCLdTLDyj/tzYm		14.54375	121.046024	t	1	2026-11-30 12:30:49.798+00	2026-11-30 12:30:49.798+00	\N	\N	\N	f	t	en
4eb3454a-df54-43eb-b064-01a324990fdf	demo-7-1@sportlook.demo	demo-7-1@sportlook.demo	Wen O	$2b$04$mLM0amwLkNBJXwyk1lGAD.9yojlYSizrkOZBtCJSCLdTLDyj/tzYm		4.889583	-74.086775	t	1	2026-11-30 12:30:49.798+00	2026-11-30 12:30:49.798+00	\N	\N	\N	f	t	en
e9b91f3a-331f-48f5-ba9a-0d310162a113	demo-7-2@sportlook.demo	demo-7-2@sportlook.demo	Kai X	$2b$04$mLM0amwLkNBJXwyk1lGAD.9yojlYSizrkOZBtCJSCLdTLDyj/tzYm		1.410417	103.815776	f	1	2026-11-30 12:30:49.798+00	2026-11-30 12:30:49.798+00	\N	\N	\N	f	t	en
5b9e85d1-3f72-4d2d-a10d-d28948f0d4a4	demo-7-3@sportlook.demo	demo-7-3@sportlook.demo	Xavi J	$2b$04$mLM0amwLkNBJXwyk1lGAD.9yojlYSizrkOZBtCJSCLdTLDyj/tzYm		52.289583	13.136921	t	1	2026-11-30 12:30:49.798+00	2026-11-30 12:30:49.798+00	\N	\N	\N	f	t	en
e6f46135-856d-4740-abc1-0ebb0f51d292	demo-7-4@sportlook.demo	demo-7-4@sportlook.demo	Femi M	$2b$04$mLM0amwLkNBJXwyk1lGAD.9yojlYSizrkOZBtCJSCLdTLDyj/tzYm		19.172917	73.052557	t	1	2026-11-30 12:30:49.798+00	2026-11-30 12:30:49.798+00	\N	\N	\N	f	t	en
11ecaa10-c2f4-43cb-830f-3f8c6dd122c7	demo-7-5@sportlook.demo	demo-7-5@sportlook.demo	Zoe Y	$2b$04$mLM0amwLkNBJXwyk1lGAD.9yojlYSizrkOZBtCJSCLdTLDyj/tzYm		12.777083	77.539283	f	1	2026-11-30 12:30:49.798+00	2026-11-30 12:30:49.798+00	\N	\N	\N	f	t	en
544ac49b-fbd9-4787-ab74-957d4b9b58b5	demo-7-6@sportlook.demo	demo-7-6@sportlook.demo	Quinn I	$2b$04$mLM0amwLkNBJXwyk1lGAD.9yojlYSizrkOZBtCJSCLdTLDyj/tzYm		19.19375	-99.113938	f	1	2026-11-30 12:30:49.798+00	2026-11-30 12:30:49.798+00	\N	\N	\N	f	t	en
92b099ae-d0a3-4ff5-8314-397efc7913b2	demo-7-7@sportlook.demo	demo-7-7@sportlook.demo	Omar C	$2b$04$mLM0amwLkNBJXwyk1lGAD.9yojlYSizrkOZBtCJSCLdTLDyj/tzYm		-12.04375	-77.082298	f	1	2026-11-30 12:30:49.798+00	2026-11-30 12:30:49.798+00	\N	\N	\N	f	t	en
b81f511c-d658-4ba5-a5fd-143a8d3ef8d3	demo-7-8@sportlook.demo	demo-7-8@sportlook.demo	Tomás Z	$2b$04$mLM0amwLkNBJXwyk1lGAD.9yojlYSizrkOZBtCJSCLdTLDyj/tzYm		21.510417	-158.012242	f	1	2026-11-30 12:30:49.798+00	2026-11-30 12:30:49.798+00	\N	\N	\N	f	t	en
c30119d9-b041-4657-9c95-434e3e1cf68b	demo-7-9@sportlook.demo	demo-7-9@sportlook.demo	Pia F	$2b$04$mLM0amwLkNBJXwyk1lGAD.9yojlYSizrkOZBtCJSCLdTLDyj/tzYm		-36.697917	174.608445	t	1	2026-11-30 12:30:49.798+00	2026-11-30 12:30:49.798+00	\N	\N	\N	f	t	en
1813664d-dae8-4d44-9034-2f3bf4be4ab2	demo-7-10@sportlook.demo	demo-7-10@sportlook.demo	Tomás D	$2b$04$mLM0amwLkNBJXwyk1lGAD.9yojlYSizrkOZBtCJSCLdTLDyj/tzYm		-33.947917	18.361145	t	1	2026-11-30 12:30:49.798+00	2026-11-30 12:30:49.798+00	\N	\N	\N	f	t	en
b7043b64-b4e0-4713-9787-42c4681f8152	demo-7-11@sportlook.demo	demo-7-11@sportlook.demo	Pia Z	$2b$04$mLM0amwLkNBJXwyk1lGAD.9yojlYSizrkOZBtCJSCLdTLDyj/tzYm		25.89375	-80.21203	t	1	2026-11-30 12:30:49.798+00	2026-11-30 12:30:49.798+00	\N	\N	\N	f	t	en
fd262291-ee7a-4913-bbad-85fdb9069a4d	demo-7-12@sportlook.demo	demo-7-12@sportlook.demo	Hana F	$2b$04$mLM0amwLkNBJXwyk1lGAD.9yojlYSizrkOZBtCJSCLdTLDyj/tzYm		-33.89375	18.555174	t	1	2026-11-30 12:30:49.798+00	2026-11-30 12:30:49.798+00	\N	\N	\N	f	t	en
87537df7-92ba-4d5a-95e3-5ce7652fe8be	demo-7-13@sportlook.demo	demo-7-13@sportlook.demo	Hana K	$2b$04$mLM0amwLkNBJXwyk1lGAD.9yojlYSizrkOZBtCJSCLdTLDyj/tzYm		6.610417	3.280163	t	1	2026-11-30 12:30:49.798+00	2026-11-30 12:30:49.798+00	\N	\N	\N	f	t	en
b8003617-4e19-4c89-83ca-bb3d0b121ee1	demo-7-14@sportlook.demo	demo-7-14@sportlook.demo	Pia L	$2b$04$mLM0amwLkNBJXwyk1lGAD.9yojlYSizrkOZBtCJSCLdTLDyj/tzYm		52.527083	5.057834	t	1	2026-11-30 12:30:49.798+00	2026-11-30 12:30:49.798+00	\N	\N	\N	f	t	en
ec4882d3-bc8d-4f21-b785-053a0af957c1	demo-7-15@sportlook.demo	demo-7-15@sportlook.demo	Nia F	$2b$04$mLM0amwLkNBJXwyk1lGAD.9yojlYSizrkOZBtCJSCLdTLDyj/tzYm		51.464583	-0.521671	t	1	2026-11-30 12:30:49.798+00	2026-11-30 12:30:49.798+00	\N	\N	\N	f	t	en
fe8fb9f1-c7f8-4ab3-aca3-d502e1389069	demo-7-16@sportlook.demo	demo-7-16@sportlook.demo	Omar R	$2b$04$mLM0amwLkNBJXwyk1lGAD.9yojlYSizrkOZBtCJSCLdTLDyj/tzYm		-37.839583	144.995603	f	1	2026-11-30 12:30:49.798+00	2026-11-30 12:30:49.798+00	\N	\N	\N	f	t	en
97028506-9058-45ba-afdd-d9eaf1561757	demo-7-17@sportlook.demo	demo-7-17@sportlook.demo	Ivan C	$2b$04$mLM0amwLkNBJXwyk1lGAD.9yojlYSizrkOZBtCJSCLdTLDyj/tzYm		-6.23125	106.957585	f	1	2026-11-30 12:30:49.798+00	2026-11-30 12:30:49.798+00	\N	\N	\N	f	t	en
458e51cd-dabc-4735-a526-74f2aff9e21c	demo-7-18@sportlook.demo	demo-7-18@sportlook.demo	Wen M	$2b$04$mLM0amwLkNBJXwyk1lGAD.9yojlYSizrkOZBtCJSCLdTLDyj/tzYm		14.54375	121.274169	t	1	2026-11-30 12:30:49.798+00	2026-11-30 12:30:49.798+00	\N	\N	\N	f	t	en
3d40b007-2f50-4e27-942c-426ca2cd2e51	demo-7-19@sportlook.demo	demo-7-19@sportlook.demo	Chloé I	$2b$04$mLM0amwLkNBJXwyk1lGAD.9yojlYSizrkOZBtCJSCLdTLDyj/tzYm		25.310417	55.34402	t	1	2026-11-30 12:30:49.798+00	2026-11-30 12:30:49.798+00	\N	\N	\N	f	t	en
81009583-187d-4f38-a63e-17f73c3bccf6	bo@upgrade.test	bo@upgrade.test	Bo	$2b$04$W26r0xJIje5KsIYeqR/L0u.Gb3NCOYddD.mGtFOx89dB1t3Xkbn.a		\N	\N	f	1	2026-11-30 12:30:50.05+00	2026-11-30 12:30:50.05+00	\N	\N	\N	f	t	en
4a45df90-0b99-47e4-94ca-3b86561f2208	cleo@upgrade.test	cleo@upgrade.test	Cleo	$2b$04$POJ/1oQ.1gLCtxSPMD16JOhZzkHgwoNtnxaNs8ukxMTNkpTpgfIzC		\N	\N	f	1	2026-11-30 12:30:50.058+00	2026-11-30 12:30:50.058+00	\N	\N	\N	f	t	en
b3e50a28-8545-4280-87d0-10a834de4120	dev@upgrade.test	dev@upgrade.test	Dev	$2b$04$L9oJvbZPCJt6LiMniIM4BO7OgDiGHJ93YqwcSHw7a8tK7nAHjgWJ2		\N	\N	f	1	2026-11-30 12:30:50.066+00	2026-11-30 12:30:50.066+00	\N	\N	\N	f	t	en
f3b362fc-504a-4f86-9e18-db530850dc68	eli@upgrade.test	eli@upgrade.test	Eli	$2b$04$PVG2IxQAWEUjubTADKRpdOyJRD4kn9GAta.osXZieX.U0619/2bDO		\N	\N	f	1	2026-11-30 12:30:50.075+00	2026-11-30 12:30:50.075+00	\N	\N	\N	f	t	en
d5867f83-2d79-4805-9d82-d186741aeccb	fay@upgrade.test	fay@upgrade.test	Fay	$2b$04$FMZV.DJQkwUxDTdrue5bRe9kYFwlkWnWLPXmZ3B61Ac2eDiEjyTni		\N	\N	f	1	2026-11-30 12:30:50.083+00	2026-11-30 12:30:50.083+00	\N	\N	\N	f	t	en
c67f4136-ec37-406b-9533-a5e7e4bc207e	ada@upgrade.test	ada@upgrade.test	Ada	$2b$04$EcAR8JBv3Hr2zSGDLCbHNe7nFqktROtyZwzrhN2GGDcBkwkdQuuLO	Left back, Tuesdays	\N	\N	f	2	2026-11-30 12:30:50.038+00	2026-11-30 12:30:50.089999+00	\N	\N	\N	f	t	en
\.


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
-- Name: attendances attendances_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.attendances
    ADD CONSTRAINT attendances_pkey PRIMARY KEY (event_id, user_id);


--
-- Name: blocks blocks_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.blocks
    ADD CONSTRAINT blocks_pkey PRIMARY KEY (blocker_id, blocked_id);


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
-- Name: events events_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.events
    ADD CONSTRAINT events_pkey PRIMARY KEY (id);


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
-- Name: push_receipts push_receipts_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.push_receipts
    ADD CONSTRAINT push_receipts_pkey PRIMARY KEY (job_id, device_id);


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
-- Name: server_secrets server_secrets_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.server_secrets
    ADD CONSTRAINT server_secrets_pkey PRIMARY KEY (name);


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
-- Name: used_tokens used_tokens_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.used_tokens
    ADD CONSTRAINT used_tokens_pkey PRIMARY KEY (digest);


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
-- Name: attendances_user; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX attendances_user ON public.attendances USING btree (user_id);


--
-- Name: attendances_waitlist; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX attendances_waitlist ON public.attendances USING btree (event_id, status, queue_number);


--
-- Name: blocks_blocked; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX blocks_blocked ON public.blocks USING btree (blocked_id);


--
-- Name: chat_messages_attachment; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX chat_messages_attachment ON public.chat_messages USING btree (attachment_id) WHERE (attachment_id IS NOT NULL);


--
-- Name: chat_messages_changes; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX chat_messages_changes ON public.chat_messages USING btree (room_id, change_seq) WHERE (change_seq > 0);


--
-- Name: chat_presence_event; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX chat_presence_event ON public.chat_presence USING btree (room_id, user_id);


--
-- Name: conversations_high; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX conversations_high ON public.conversations USING btree (user_high);


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
-- Name: events_live; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX events_live ON public.events USING btree (status, ends_at, id) INCLUDE (sport_slug, lat, lon, starts_at, version);


--
-- Name: events_organiser; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX events_organiser ON public.events USING btree (organiser_id, starts_at);


--
-- Name: events_updated; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX events_updated ON public.events USING btree (updated_at);


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
-- Name: notifications_one_unread; Type: INDEX; Schema: public; Owner: -
--

CREATE UNIQUE INDEX notifications_one_unread ON public.notifications USING btree (user_id, collapse_key) WHERE ((read_at IS NULL) AND (collapse_key IS NOT NULL));


--
-- Name: notifications_user; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX notifications_user ON public.notifications USING btree (user_id, created_at, id);


--
-- Name: reports_open; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX reports_open ON public.reports USING btree (status, created_at);


--
-- Name: used_tokens_expiry; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX used_tokens_expiry ON public.used_tokens USING btree (expires_at);


--
-- Name: access_tokens access_tokens_user_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.access_tokens
    ADD CONSTRAINT access_tokens_user_id_fkey FOREIGN KEY (user_id) REFERENCES public.users(id) ON DELETE CASCADE;


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
-- Name: events events_cover_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.events
    ADD CONSTRAINT events_cover_id_fkey FOREIGN KEY (cover_id) REFERENCES public.media(id) ON DELETE SET NULL;


--
-- Name: events events_organiser_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.events
    ADD CONSTRAINT events_organiser_id_fkey FOREIGN KEY (organiser_id) REFERENCES public.users(id);


--
-- Name: events events_sport_slug_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.events
    ADD CONSTRAINT events_sport_slug_fkey FOREIGN KEY (sport_slug) REFERENCES public.sports(slug);


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


