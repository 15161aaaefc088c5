"""A journey through every tag of openapi.yaml with the Python client that
openapi-python-client generated from it (scripts/python-client runs it).

Three people sign up and walk through accounts, media, events, series, groups, chat
with a photo, invitations, notifications, people, operations and the web client, calling
the server through the generated client only: each answer must have the documented
status and parse into its generated model (never None, never an UnexpectedStatus), with
the values the step expects. The first failure stops the journey with its step.

Usage: python3 scripts/python_client_journey.py BASE_URL   (the client on PYTHONPATH)
"""
import datetime
import struct
import sys
import time
import traceback
import uuid
import zlib
from urllib.parse import parse_qs, urlsplit

from sportlook_client import AuthenticatedClient, Client
from sportlook_client import models as m
from sportlook_client.api.accounts import (get_me, get_player, list_sessions, list_sports, login, logout, my_record,
                                           register, update_me, update_player)
from sportlook_client.api.chat import (accept_conversation, add_reaction, edit_message, get_conversation, list_messages,
                                       list_my_rooms, list_room_messages, mark_chat_read, send_message, send_room_message,
                                       start_conversation)
from sportlook_client.api.events import (attendance_sheet, create_event, events_nearby, get_event, join_event,
                                         leave_event, list_attendees, my_events, update_event)
from sportlook_client.api.groups import (create_group, get_group, group_events, groups_nearby, join_group,
                                         list_group_members, my_groups)
from sportlook_client.api.invitations import accept_invitation, invite, my_invitations
from sportlook_client.api.media import get_media, get_media_file, head_media_file, upload_media
from sportlook_client.api.notifications import list_devices, mark_notifications_read, my_notifications
from sportlook_client.api.operations import health, openapi, ready
from sportlook_client.api.people import block_user, get_user, my_blocks, people_nearby, unblock_user
from sportlook_client.api.series import create_series, get_series, join_series, leave_series, list_regulars
from sportlook_client.api.web import web_client
from sportlook_client.types import File

BASE = sys.argv[1] if len(sys.argv) > 1 else "http://127.0.0.1:8080"
PASSWORD = "correct horse battery"
HERE = m.Location(lat=55.6761, lon=12.5683)
NEARBY = m.Location(lat=55.6800, lon=12.5700)
calls = 0
tags = set()


class JourneyFailure(Exception):
    pass


def expect(condition, message):
    if not condition:
        raise JourneyFailure(message)


def eventually(read, condition, message, seconds=20):
    """Reads until `condition` holds of the answer. A notification is made by a job the
    call queued, a moment after that call answered, as a client polling its inbox sees."""
    deadline = time.monotonic() + seconds
    while True:
        answer = read()
        if condition(answer):
            return answer
        if time.monotonic() > deadline:
            raise JourneyFailure(message)
        time.sleep(0.1)


def call(operation, status, model, *args, **kwargs):
    """Calls a generated operation; its answer must have `status` and parse into `model`."""
    global calls
    name = operation.__name__.rsplit(".", 1)[-1]
    tags.add(operation.__name__.split(".")[-2])
    response = operation.sync_detailed(*args, **kwargs)
    calls += 1
    body = response.content[:600].decode("utf-8", "replace")
    expect(response.status_code == status, f"{name}: expected {status}, got {int(response.status_code)}: {body}")
    if model is None:
        expect(response.parsed is None or response.parsed == "" or status == 204, f"{name}: {status} parsed as {response.parsed!r}")
    else:
        expect(isinstance(response.parsed, model), f"{name}: the answer parsed as {type(response.parsed).__name__}, not {model.__name__}: {body}")
    return response.parsed


def fetch(operation, status, *args, **kwargs):
    """A non-JSON answer (an image, the YAML document): the generated client sends the
    request, and leaves the body as bytes, as the generator does for such media."""
    global calls
    tags.add(operation.__name__.split(".")[-2])
    response = operation.sync_detailed(*args, **kwargs)
    calls += 1
    expect(response.status_code == status, f"{operation.__name__.rsplit('.', 1)[-1]}: expected {status}, got {int(response.status_code)}")
    return response


def png(width, height):
    """A small RGB PNG, made here (the server decides what an upload is from its bytes)."""
    rows = b"".join(b"\x00" + bytes(v for x in range(width) for v in (x * 4 % 256, y * 4 % 256, (x + y) % 256)) for y in range(height))

    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b""))


def media_key(url):
    """The key and the signature's query of a media URL (`/media/{key}?expires=…&signature=…`)."""
    parts = urlsplit(url)
    expect(parts.path.startswith("/media/"), f"a media URL on this server, not {url}")
    query = {k: v[0] for k, v in parse_qs(parts.query).items()}
    return parts.path[len("/media/"):], query


def sign_up(anonymous, name):
    email = f"{name.lower()}-{uuid.uuid4().hex[:10]}@example.com"
    result = call(register, 201, m.AuthResult, client=anonymous, body=m.Registration(name=name, email=email, password=PASSWORD))
    expect(result.user.name == name and result.access_token, f"register: {name}'s account and token")
    expect(result.token_type == m.AuthResultTokenType.BEARER, "register: a bearer token")
    return email, result


def journey():
    anonymous = Client(base_url=BASE, raise_on_unexpected_status=True, timeout=30)
    # For answers whose media the generator leaves to the caller (images, YAML).
    lenient = Client(base_url=BASE, timeout=30)

    # operations and web
    expect(call(health, 200, m.HealthResponse200, client=anonymous).status == m.HealthResponse200Status.OK, "health: ok")
    expect(call(ready, 200, m.ReadyResponse200, client=anonymous).status == m.ReadyResponse200Status.READY, "ready: ready")
    document = fetch(openapi, 200, client=lenient)
    expect(document.content.startswith(b"openapi: 3") and document.headers["content-type"].startswith("application/yaml"), "openapi: the YAML document")
    expect("<html" in call(web_client, 200, str, client=anonymous).lower(), "web client: a page")

    # accounts
    ann_email, ann_signup = sign_up(anonymous, "Ann")
    _, bo_signup = sign_up(anonymous, "Bo")
    _, cy_signup = sign_up(anonymous, "Cy")
    signed_in = call(login, 200, m.AuthResult, client=anonymous, body=m.Login(email=ann_email, password=PASSWORD))
    expect(signed_in.user.id == ann_signup.user.id and signed_in.device_key, "login: Ann's own account, with a device key")
    ann = AuthenticatedClient(base_url=BASE, token=signed_in.access_token, raise_on_unexpected_status=True, timeout=30)
    bo = AuthenticatedClient(base_url=BASE, token=bo_signup.access_token, raise_on_unexpected_status=True, timeout=30)
    cy = AuthenticatedClient(base_url=BASE, token=cy_signup.access_token, raise_on_unexpected_status=True, timeout=30)
    # A second session of Ann's, signed out again.
    spare = AuthenticatedClient(base_url=BASE, token=ann_signup.access_token, raise_on_unexpected_status=True, timeout=30)
    call(logout, 204, None, client=spare)
    me = call(get_me, 200, m.PrivateProfile, client=ann)
    expect(me.name == "Ann" and me.email == ann_email and me.location is None, "me: Ann, no location yet")
    sessions = call(list_sessions, 200, m.ListSessionsResponse200, client=ann)
    expect(len(sessions.items) == 1 and sessions.items[0].current, "sessions: the one left, current")
    sports = call(list_sports, 200, m.ListSportsResponse200, client=ann)
    expect(any(s.slug == "football" for s in sports.items), "sports: football in the catalogue")
    for person, bio in ((ann, "Left back."), (bo, "Keeper."), (cy, "Striker.")):
        profile = call(update_me, 200, m.PrivateProfile, client=person, body=m.ProfileChanges(
            bio=bio, sports=[m.SportSlug.FOOTBALL, m.SportSlug.TENNIS], location=NEARBY if person is bo else HERE, discoverable=True))
        expect(profile.bio == bio and profile.discoverable and isinstance(profile.location, m.Location), "profile update: bio, sports, area")
        expect(profile.sports == ["football", "tennis"], f"profile update: the sports, not {profile.sports}")
    player = call(get_player, 200, m.Player, client=bo)
    expect(player.gender is None, "player: no gender declared (a null of a nullable enum)")
    player = call(update_player, 200, m.Player, client=bo, body=m.UpdatePlayerBody(
        gender=m.Gender.MAN, levels=m.UpdatePlayerBodyLevels.from_dict({"football": 3.5})))
    expect(player.gender == m.Gender.MAN and player.levels["football"] == 3.5, "player update: gender and level")
    record = call(my_record, 200, m.Record, client=bo)
    expect(record.games == 0 and record.items == [], "record: no games yet")

    # media: photos uploaded as a form's file
    photo = call(upload_media, 201, m.Media, client=ann, use=m.UploadMediaUse.PROFILE,
                 body=m.UploadMediaFilesBody(file=File(payload=png(96, 96), file_name="ann.png", mime_type="image/png")))
    expect(photo.use == m.MediaUse.PROFILE and set(photo.urls.additional_keys) == {"512", "128"}, f"upload: a profile photo's variants, not {photo.urls.additional_keys}")
    again = call(get_media, 200, m.Media, photo.id, client=ann)
    expect(again.id == photo.id and len(again.variants) == 2, "media: the upload again")
    profile = call(update_me, 200, m.PrivateProfile, client=ann, body=m.ProfileChanges(photo_id=photo.id))
    expect(isinstance(profile.image_urls, m.ImageURLsType0) and "128" in profile.image_urls.additional_keys, "profile: the photo's URLs")
    key, query = media_key(profile.image_urls["128"])
    image = fetch(get_media_file, 200, key, client=lenient, **query)
    expect(image.content[:3] == b"\xff\xd8\xff" and image.headers["content-type"] == "image/jpeg", "media file: a JPEG")
    head = fetch(head_media_file, 200, key, client=lenient, **query)
    expect(int(head.headers["content-length"]) == len(image.content), "media file HEAD: its length")
    cover = call(upload_media, 201, m.Media, client=ann, use=m.UploadMediaUse.COVER,
                 body=m.UploadMediaFilesBody(file=File(payload=png(160, 90), file_name="cover.png", mime_type="image/png")))
    expect(cover.use == m.MediaUse.COVER, "upload: a cover, from a multipart form")

    # events
    start = datetime.datetime.now(datetime.timezone.utc).replace(microsecond=0) + datetime.timedelta(days=1)
    event = call(create_event, 201, m.Event, client=ann, body=m.NewEvent(
        title="Five-a-side", sport=m.SportSlug.FOOTBALL, starts_at=start, location=HERE, capacity=3, cover_id=cover.id,
        description="Bring a ball."))
    expect(event.title == "Five-a-side" and event.i_organise and event.going_count == 0 and event.spots_left == 3, "create event: the organiser's view")
    expect(isinstance(event.image_urls, m.ImageURLsType0), "create event: the cover's URLs")
    seen = call(get_event, 200, m.Event, event.id, client=bo)
    expect(seen.my_status is None and not seen.i_organise, "event: no place of Bo's yet (a null of a nullable enum)")
    nearby = call(events_nearby, 200, m.EventPage, client=bo, lat=NEARBY.lat, lon=NEARBY.lon, radius_km=5.0)
    expect(any(e.id == event.id and e.my_status is None for e in nearby.items), "nearby: the game, not joined")
    joined = call(join_event, 200, m.Joined, event.id, client=bo)
    expect(joined.status == m.AttendanceStatus.GOING, "join: going")
    expect(call(get_event, 200, m.Event, event.id, client=bo).my_status == m.AttendanceStatus.GOING, "event: Bo going")
    attendees = call(list_attendees, 200, m.AttendeePage, event.id, client=ann)
    expect([a.name for a in attendees.items if not a.is_organiser] == ["Bo"], "attendees: Bo")
    call(leave_event, 204, None, event.id, client=bo)
    expect(call(get_event, 200, m.Event, event.id, client=bo).my_status is None, "event: Bo left")
    call(join_event, 200, m.Joined, event.id, client=bo)
    changed = call(update_event, 200, m.Event, event.id, client=ann, body=m.EventChanges(description="Bring two balls."))
    expect(changed.description == "Bring two balls.", "update event: the description")
    mine = call(my_events, 200, m.EventPage, client=bo)
    expect([e.id for e in mine.items] == [event.id], "my events: the game Bo goes to")
    sheet = call(attendance_sheet, 200, m.AttendanceSheetResponse200, event.id, client=ann)
    expect(any(row.user.name == "Bo" and row.going and row.mark is None and row.outcome is None for row in sheet.items),
           "sheet: Bo going, unmarked (nulls of nullable enums)")

    # series
    first = (datetime.date.today() + datetime.timedelta(days=7)).isoformat()
    series = call(create_series, 201, m.Series, client=ann, body=m.NewSeries(
        title="Tuesday tennis", sport=m.SportSlug.TENNIS, location=HERE, time_zone="Europe/Copenhagen", first_date=first,
        start_time="18:30", rule="FREQ=WEEKLY", capacity=4))
    expect(series.title == "Tuesday tennis" and series.status == m.SeriesStatus.ACTIVE and series.upcoming, "series: made, with games")
    expect(call(get_series, 200, m.Series, series.id, client=bo).i_am_regular is False, "series: Bo not a regular")
    regular = call(join_series, 200, m.Series, series.id, client=bo)
    expect(regular.i_am_regular and regular.regulars_count == 1, "join series: Bo a regular")
    regulars = call(list_regulars, 200, m.ListRegularsResponse200, series.id, client=ann)
    expect([r.user.name for r in regulars.items] == ["Bo"], f"regulars: Bo, not {regulars.to_dict()}")
    call(leave_series, 204, None, series.id, client=bo)

    # groups
    group = call(create_group, 201, m.Group, client=ann, body=m.NewGroup(
        name="Nørrebro footballers", location=HERE, sports=[m.SportSlug.FOOTBALL], policy=m.NewGroupPolicy.PUBLIC))
    expect(group.my_role == m.GroupRole.OWNER and group.member_count == 1, "group: Ann owns it")
    outside = call(get_group, 200, m.Group, group.id, client=bo)
    expect(outside.my_role is None and not outside.my_request, "group: Bo no member (a null of a nullable enum)")
    membership = call(join_group, 200, m.JoinGroupResponse200, group.id, client=bo, body=m.JoinGroup())
    expect(membership.status == m.JoinGroupResponse200Status.MEMBER, f"join group: a member, not {membership.to_dict()}")
    members = call(list_group_members, 200, m.GroupMemberPage, group.id, client=ann)
    expect(sorted((g.user.name, g.role) for g in members.items) == [("Ann", m.GroupRole.OWNER), ("Bo", m.GroupRole.MEMBER)], "members: Ann and Bo")
    expect([g.my_role for g in call(my_groups, 200, m.GroupPage, client=bo).items] == [m.GroupRole.MEMBER], "my groups: Bo a member")
    near = call(groups_nearby, 200, m.GroupPage, client=cy, lat=HERE.lat, lon=HERE.lon)
    expect(any(g.id == group.id and g.my_role is None for g in near.items), "groups nearby: the group, Cy no member")
    expect(call(group_events, 200, m.EventPage, group.id, client=bo).items == [], "group events: none yet")

    # chat with a photo
    picture = call(upload_media, 201, m.Media, client=ann, use=m.UploadMediaUse.CHAT,
                   body=m.UploadMediaFilesBody(file=File(payload=png(120, 80), file_name="pitch.png", mime_type="image/png")))
    sent = call(send_message, 201, m.ChatMessage, event.id, client=ann, body=m.NewMessage(
        client_id="ann-1", body="The pitch:", attachment_id=picture.id, mentions=[bo_signup.user.id]))
    expect(isinstance(sent.attachment, m.ChatAttachment) and sent.attachment.id == picture.id, "send: the photo attached")
    expect(set(sent.attachment.urls.additional_keys) == {"2048", "320"} and sent.mentions == [bo_signup.user.id], "send: the photo's links and the mention")
    expect(call(send_message, 200, m.ChatMessage, event.id, client=ann, body=m.NewMessage(
        client_id="ann-1", body="The pitch:", attachment_id=picture.id)).seq == sent.seq, "send again: the same message")
    reply = call(send_message, 201, m.ChatMessage, event.id, client=bo, body=m.NewMessage(client_id="bo-1", body="Nice!", reply_to=sent.seq))
    expect(reply.attachment is None and isinstance(reply.reply_to, m.ChatMessageReplyToType0) and reply.reply_to.seq == sent.seq,
           "reply: text only (a null attachment), quoting the photo")
    history = call(list_messages, 200, m.ChatMessagePage, event.id, client=bo)
    expect([x.seq for x in history.items] == [1, 2] and history.items[0].attachment is not None and history.items[1].attachment is None, "history: both")
    key, query = media_key(history.items[0].attachment.urls["320"])
    expect(fetch(get_media_file, 200, key, client=lenient, **query).content[:3] == b"\xff\xd8\xff", "the chat photo's preview")
    call(mark_chat_read, 204, None, event.id, client=ann, body=m.MarkChatReadBody(seq=2))
    reacted = call(add_reaction, 200, m.ChatMessage, event.id, 2, client=ann, body=m.AddReactionBody(emoji=m.AddReactionBodyEmoji.VALUE_0))
    expect(reacted.reactions[0].count == 1 and reacted.reactions[0].user_ids == [ann_signup.user.id], "reaction: Ann's")
    edited = call(edit_message, 200, m.ChatMessage, event.id, 2, client=bo, body=m.EditMessageBody(body="Nice pitch!"))
    expect(edited.body == "Nice pitch!" and edited.edited_at is not None, "edit: the new text")
    rooms = call(list_my_rooms, 200, m.RoomListingPage, client=bo)
    expect(any(r.id == event.id and isinstance(r.last_message, m.ChatMessage) for r in rooms.items), "rooms: the game's chat with its last message")
    talk = call(start_conversation, 201, m.Conversation, client=bo, body=m.StartConversationBody(user_id=cy_signup.user.id))
    expect(talk.state == m.ConversationState.NEW and talk.can_send, "conversation: new")
    call(send_room_message, 201, m.ChatMessage, talk.id, client=bo, body=m.NewMessage(client_id="bo-2", body="Fancy a game?"))
    asked = call(get_conversation, 200, m.Conversation, talk.id, client=cy)
    expect(asked.state == m.ConversationState.REQUESTED and asked.requested_by == bo_signup.user.id, "conversation: Bo asked")
    expect(call(accept_conversation, 200, m.Conversation, talk.id, client=cy).state == m.ConversationState.OPEN, "accept: open")
    private = call(list_room_messages, 200, m.ChatMessagePage, talk.id, client=cy)
    expect([x.body for x in private.items] == ["Fancy a game?"] and private.items[0].event_id is None, "conversation history")

    # invitations
    invited = call(invite, 201, m.InviteResponse201, event.id, client=ann, body=m.InviteBody(user_ids=[cy_signup.user.id]))
    expect(invited.items[0].status == m.InvitationStatus.PENDING, "invite: pending")
    pending = call(my_invitations, 200, m.InvitationPage, client=cy)
    expect(len(pending.items) == 1 and isinstance(pending.items[0].event, m.Event) and pending.items[0].event.my_status is None,
           "invitations: one, to a game Cy has no place in (a null of a nullable enum)")
    accepted = call(accept_invitation, 200, m.Invitation, pending.items[0].id, client=cy)
    expect(accepted.status == m.InvitationStatus.ACCEPTED and accepted.attendance.status == m.AttendanceStatus.GOING, "accept: going")

    # notifications
    inbox = eventually(lambda: call(my_notifications, 200, m.NotificationPage, client=cy),
                       lambda page: any(n.kind == m.NotificationKind.INVITATION for n in page.items), "inbox: the invitation")
    call(mark_notifications_read, 204, None, client=cy, body=m.MarkNotificationsReadBodyType0(ids=[n.id for n in inbox.items]))
    unread = call(my_notifications, 200, m.NotificationPage, client=cy, unread=True)
    expect(unread.items == [], "inbox: all read")
    eventually(lambda: call(my_notifications, 200, m.NotificationPage, client=ann),
               lambda page: any(n.kind == m.NotificationKind.INVITATION_ACCEPTED for n in page.items), "Ann's inbox: the invitation accepted")
    expect(call(list_devices, 200, m.ListDevicesResponse200, client=cy).items == [], "devices: none")

    # people
    people = call(people_nearby, 200, m.PersonNearbyPage, client=ann, lat=HERE.lat, lon=HERE.lon, sport=m.SportSlug.FOOTBALL)
    expect({p.name for p in people.items} >= {"Bo", "Cy"}, f"people nearby: Bo and Cy, not {[p.name for p in people.items]}")
    public = call(get_user, 200, m.PublicProfile, bo_signup.user.id, client=cy)
    expect(public.name == "Bo" and public.bio == "Keeper." and [e.id for e in public.upcoming_events] == [event.id], "profile: Bo and his game")
    call(block_user, 204, None, cy_signup.user.id, client=ann)
    expect([b.id for b in call(my_blocks, 200, m.BlockedPage, client=ann).items] == [cy_signup.user.id], "blocks: Cy")
    call(unblock_user, 204, None, cy_signup.user.id, client=ann)


def main():
    try:
        journey()
    except Exception as failure:  # a parse failure of the generated client, or a step's expectation
        traceback.print_exc()
        print(f"python client journey FAILED after {calls} calls: {failure}", file=sys.stderr)
        return 1
    print(f"python client journey: {calls} calls through the generated client, tags {', '.join(sorted(tags))}: every answer parsed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
