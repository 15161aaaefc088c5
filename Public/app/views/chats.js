// The chats list (every event chat and conversation, most recent first, kept live
// over the socket) and one conversation: a message request to answer, then the chat.
import {api, del, get, me, post} from "../api.js";
import {btn, h, replace, status} from "../dom.js";
import {realtime} from "../realtime.js";
import {chatPanel} from "./chat.js";

/** What a room's entry says about its last message. */
function preview(room) {
  const m = room.last_message;
  if (!m) return room.kind === "conversation" ? "" : "No messages yet";
  const text = m.deleted ? "Message deleted" : (m.body || (m.attachment ? "📷 Photo" : ""));
  return `${m.sender.name}: ${text}`;
}

export function chatsView() {
  const list = h("ul", {class: "rooms", "aria-label": "Chats"});
  const note = status("Loading your chats…");
  const section = h("section", {class: "chats-view"}, h("h1", "Chats"), note, list);
  const rooms = new Map(); // id → room

  const entry = (room) => {
    const href = room.kind === "event" ? `#/events/${room.id}` : room.kind === "group" ? `#/groups/${room.id}` : `#/chats/${room.id}`;
    const asked = room.conversation?.state === "requested";
    const request = !asked ? null
      : h("span", {class: "tag"}, room.conversation.requested_by === room.conversation.with.id ? "Message request" : "Request sent");
    return h("li", {class: "room", dataset: {id: room.id}},
      h("a", {href},
        h("strong", room.title),
        room.unread_count ? h("span", {class: "badge"}, String(room.unread_count), h("span", {class: "visually-hidden"}, " unread")) : null,
        request,
        room.muted ? h("span", {class: "tag"}, "Muted") : null),
      h("p", {class: "meta"}, preview(room)));
  };

  function render() {
    const sorted = [...rooms.values()].sort((a, b) => (b.last_activity_at.localeCompare(a.last_activity_at)) || b.id.localeCompare(a.id));
    replace(list, sorted.map(entry));
    replace(note, sorted.length ? "" : "No chats yet: join an event, or write to someone from People.");
  }

  const stop = realtime.watchRooms((frame) => {
    if (frame.type === "room_updated") rooms.set(frame.room.id, frame.room);
    else rooms.delete(frame.room_id);
    render();
  });
  get("/v1/me/rooms?limit=100").then((page) => {
    for (const room of page.items) if (!rooms.has(room.id)) rooms.set(room.id, room);
    render();
  }).catch((e) => replace(note, e.message));
  return {element: section, leave: stop};
}

export function conversationView(id) {
  const section = h("section", {class: "conversation"}, status("Loading the conversation…"));
  let stopChat = null;
  let gone = false;

  async function render() {
    let conversation, user;
    try {
      [conversation, user] = await Promise.all([get(`/v1/conversations/${id}`), me()]);
    } catch (error) {
      replace(section, h("h1", "Chat"), status(error.status === 404 ? "This conversation does not exist, or is not yours." : error.message));
      return;
    }
    if (gone) return;
    const other = conversation.with.name;
    const feedback = status("");
    const answer = async (action) => {
      try { await post(`/v1/conversations/${id}/${action}`); stopChat?.(); render(); } catch (e) { replace(feedback, e.message); }
    };
    let banner = null;
    if (conversation.state === "requested" && conversation.requested_by !== user.id) {
      banner = h("div", {class: "request", role: "group", "aria-label": "Message request"},
        h("p", conversation.shares_event
          ? `${other} wants to message you. You are both going to an event, so they can write until a week after it; accept to keep talking after that.`
          : `${other} wants to message you. They share no event with you.`),
        btn({class: "primary", onclick: () => answer("accept")}, "Accept"),
        btn({onclick: () => answer("decline")}, "Decline"));
    } else if (!conversation.can_send) {
      banner = h("p", {class: "request"}, conversation.state === "declined"
        ? `${other} declined your message request.`
        : `Waiting for ${other} to accept your message request.`);
    }
    const muteButton = btn({}, "Mute");
    const room = chatPanel(id, user, {left: "You can no longer write here."});
    stopChat = room.stop;
    let muted = false;
    get("/v1/me/rooms?limit=100").then((page) => {
      muted = page.items.find((r) => r.id === id)?.muted ?? false;
      replace(muteButton, muted ? "Unmute" : "Mute");
    }).catch(() => {});
    muteButton.addEventListener("click", async () => {
      try {
        if (muted) await del(`/v1/rooms/${id}/mute`); else await api("PUT", `/v1/rooms/${id}/mute`, {});
        muted = !muted;
        replace(muteButton, muted ? "Unmute" : "Mute");
      } catch (e) { replace(feedback, e.message); }
    });
    replace(section, h("h1", `Chat with ${other}`), h("div", {class: "actions"}, muteButton), banner, feedback, room.element);
  }

  render();
  return {element: section, leave: () => { gone = true; stopChat?.(); }};
}

/** Starts (or opens) the conversation with a person, then shows it. */
export async function messagePerson(userID) {
  const conversation = await post("/v1/conversations", {user_id: userID});
  location.hash = `#/chats/${conversation.id}`;
}
