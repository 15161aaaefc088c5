// A room's chat, the same for an event and a conversation: history, then live
// messages, edits and deletions; typing and read markers; sending survives a dropped
// connection.
import {api, get} from "../api.js";
import {h, replace} from "../dom.js";
import {realtime, RETRY} from "../realtime.js";

/** The chat: history, then live messages; typing and read markers; sending survives a dropped connection. */
export function chatPanel(roomID, user, {left = "You can no longer write here."} = {}) {
  const messages = new Map(); // seq → message
  const pending = new Map(); // client_id → element
  // In a log: new messages are announced, the history loaded at once is not read out.
  const list = h("ol", {class: "messages", "aria-label": "Messages", tabindex: "0"});
  const log = h("div", {role: "log"}, list);
  const typing = h("p", {class: "typing", "aria-live": "polite"});
  const readLine = h("p", {class: "read-by"});
  const connection = h("p", {class: "connection", role: "status"});
  const input = h("input", {name: "body", autocomplete: "off", maxlength: "2000", "aria-label": "Message"});
  const form = h("form", {class: "composer"}, input, h("button", {type: "submit", class: "primary"}, "Send"));
  const readers = new Map();
  let lastSeq = 0;
  let typingTimer = null;
  let lastTyping = 0;
  let stopped = false;
  // Read markers: at most one frame a second, the highest seq, only when it moved
  // (a frame per message would outrun the socket's frame limit on a long history).
  let readSent = 0;
  let readTimer = null;
  const markRead = () => {
    if (readTimer || stopped) return;
    readTimer = setTimeout(() => {
      readTimer = null;
      if (stopped || document.visibilityState !== "visible" || lastSeq <= readSent) return;
      readSent = lastSeq;
      realtime.read(roomID, lastSeq);
    }, 1000);
  };
  document.addEventListener("visibilitychange", markRead);

  const remove = async (m) => {
    try { await api("DELETE", `/v1/rooms/${roomID}/messages/${m.seq}`); } catch (error) { replace(connection, error.message); }
  };
  const bubble = (m) => h("li", {class: [m.sender.id === user.id ? "mine" : "", m.deleted ? "deleted" : ""].join(" ").trim(), dataset: {seq: m.seq}},
    h("span", {class: "from"}, m.sender.id === user.id ? "You" : m.sender.name),
    m.reply_to ? h("blockquote", {class: "quote"}, `${m.reply_to.sender.name}: ${m.reply_to.deleted ? "a deleted message" : m.reply_to.preview}`) : null,
    h("span", {class: "body"}, m.deleted ? "Message deleted" : m.body),
    m.edited_at && !m.deleted ? h("span", {class: "meta"}, " (edited)") : null,
    m.attachment ? h("img", {src: m.attachment.urls["320"], alt: "An image", class: "attachment"}) : null,
    m.reactions?.length ? h("span", {class: "reactions"}, m.reactions.map((r) => `${r.emoji} ${r.count}`).join("  ")) : null,
    m.sender.id === user.id && !m.deleted && m.id ? h("button", {type: "button", class: "link", onclick: () => remove(m)}, "Delete", h("span", {class: "visually-hidden"}, ` your message “${m.body.slice(0, 40)}”`)) : null);

  /** A message already shown changed (edited, deleted, reacted to): its bubble is redrawn. */
  function update(m) {
    const shown = list.querySelector(`li[data-seq="${m.seq}"]`);
    if (!shown) return;
    messages.set(m.seq, m);
    shown.replaceWith(bubble(m));
  }

  function add(m) {
    if (messages.has(m.seq) && messages.get(m.seq).id) return;
    list.querySelector(`li[data-seq="${m.seq}"]`)?.remove();
    messages.set(m.seq, m);
    pending.get(m.client_id)?.remove();
    pending.delete(m.client_id);
    lastSeq = Math.max(lastSeq, m.seq);
    const element = bubble(m);
    const after = [...list.children].find((li) => li.dataset.seq && Number(li.dataset.seq) > m.seq);
    list.insertBefore(element, after ?? list.querySelector("li.pending"));
    list.scrollTop = list.scrollHeight;
    markRead();
  }

  function showReaders() {
    const names = [...readers.entries()].filter(([, r]) => r.seq >= lastSeq && lastSeq > 0).map(([, r]) => r.name);
    replace(readLine, names.length ? `Seen by ${names.join(", ")}` : "");
  }

  const listener = (frame) => {
    if (frame.type === "message") add(frame.message);
    else if (frame.type === "message_edited" || frame.type === "message_deleted") update(frame.message);
    else if (frame.type === "sent" && pending.has(frame.client_id) && !messages.has(frame.seq)) {
      // Stored: the bubble is a message now (the copy the socket relays, if it comes, is the same seq).
      const element = pending.get(frame.client_id);
      pending.delete(frame.client_id);
      element.classList.remove("pending");
      element.querySelector(".sending")?.remove();
      element.dataset.seq = frame.seq;
      // lastSeq moves when the message itself arrives, in order: a resume from it misses nothing before it.
      messages.set(frame.seq, {seq: frame.seq, client_id: frame.client_id, sender: user});
    }
    else if (frame.type === "typing" && frame.user.id !== user.id) {
      replace(typing, `${frame.user.name} is typing…`);
      clearTimeout(typingTimer);
      typingTimer = setTimeout(() => replace(typing, ""), 4000);
    } else if (frame.type === "read" && frame.user.id !== user.id) {
      const name = [...messages.values()].find((m) => m.sender.id === frame.user.id)?.sender.name ?? "someone";
      readers.set(frame.user.id, {seq: frame.seq, name});
      showReaders();
    } else if (frame.type === "unsubscribed") replace(connection, left);
    else if (frame.type === "error" && frame.client_id && !RETRY.has(frame.code)) {
      // Refused for good (too long, not a member…): the bubble says so and keeps the text.
      const element = pending.get(frame.client_id);
      pending.delete(frame.client_id);
      if (element) {
        element.classList.replace("pending", "failed");
        replace(element.querySelector(".sending"), ` · not sent: ${frame.message}`);
      }
    } else if (frame.type === "error" && !frame.client_id && RETRY.has(frame.code)) {
      // A read marker refused for now (the server is at capacity): send it again later.
      readSent = 0;
      setTimeout(markRead, (frame.retry_after ?? 2) * 1000);
    } else if (frame.type === "error" && !frame.client_id) replace(connection, frame.message);
  };
  const onState = () => replace(connection, realtime.open ? "" : "Reconnecting… your messages will be sent when the connection is back.");
  realtime.addEventListener("state", onState);

  let stop = () => {};
  get(`/v1/rooms/${roomID}/messages?limit=100`).then((page) => {
    if (stopped) return; // the screen was left before the history came
    for (const m of page.items) add(m);
    // The page is one snapshot: every change up to its newest change_seq is in it.
    const afterChange = Math.max(0, ...page.items.map((m) => m.change_seq));
    stop = realtime.follow(roomID, () => lastSeq, afterChange, listener);
    onState();
  }).catch((error) => replace(connection, error.message));

  form.addEventListener("submit", (e) => {
    e.preventDefault();
    const body = input.value.trim();
    if (!body) return;
    const clientID = crypto.randomUUID();
    const element = h("li", {class: "mine pending"}, h("span", {class: "from"}, "You"), h("span", {class: "body"}, body), h("span", {class: "sending"}, " · sending"));
    pending.set(clientID, element);
    list.append(element);
    realtime.say(roomID, clientID, body);
    input.value = "";
  });
  input.addEventListener("input", () => {
    if (Date.now() - lastTyping > 3000) { lastTyping = Date.now(); realtime.typing(roomID); }
  });

  return {
    element: h("div", {class: "chat"}, connection, log, typing, readLine, form),
    stop: () => {
      stopped = true;
      stop();
      clearTimeout(readTimer);
      realtime.removeEventListener("state", onState);
      document.removeEventListener("visibilitychange", markRead);
    },
  };
}
