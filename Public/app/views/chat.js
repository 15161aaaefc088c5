// A room's chat, the same for an event and a conversation: history, then live
// messages, edits and deletions; typing and read markers; sending survives a dropped
// connection.
import {api, get} from "../api.js";
import {btn, h, later, replace} from "../dom.js";
import {realtime, RETRY} from "../realtime.js";
import {reportControl} from "./report.js";

/** The emoji a message can carry (the server's set, in its order). */
const REACTIONS = ["👍", "❤️", "😂", "😮", "😢", "🎉", "🔥", "🙏"];
/** A message can be edited this long after it was sent (the server's window). */
const EDIT_WINDOW_MS = 15 * 60 * 1000;

/** Polls are a part loaded when first shown; once it is here, polls are drawn at once
 * (a vote redraws its message, and must not show "Loading…" each time). */
let polls = null;
function withPolls(draw) {
  return polls ? draw(polls) : later("poll", (part) => draw(polls = part));
}

/** The start of a message as the server quotes it: its first 140 characters. */
function quoted(body) {
  const characters = typeof Intl.Segmenter === "function" ? Array.from(new Intl.Segmenter().segment(body), (s) => s.segment) : [...body];
  return characters.slice(0, 140).join("");
}

export function chatPanel(roomID, user, {left = "You can no longer write here.", place = user.location ?? null, sport = null} = {}) {
  const messages = new Map(); // seq → message
  const pending = new Map(); // client_id → element
  // A log: new messages are announced.
  const list = h("ol", {class: "messages", "aria-label": "Messages", tabindex: "0"});
  const log = h("div", {role: "log"}, list);
  const typing = h("p", {class: "typing", "aria-live": "polite"});
  const readLine = h("p", {class: "read-by"});
  const connection = h("p", {class: "connection", role: "status"});
  const input = h("input", {name: "body", autocomplete: "off", maxlength: "2000", "aria-label": "Message"});
  // Answering a message: the composer quotes it.
  const replyText = h("span", {id: `replying-${roomID}`});
  const replyBar = h("p", {class: "replying", hidden: true}, replyText,
    btn({class: "link", onclick: () => replyingTo(null)}, "Cancel reply"));
  // A photo is sent as soon as it is picked, with what is typed as its caption.
  const photo = h("input", {type: "file", name: "photo", accept: "image/jpeg,image/png", hidden: true});
  const photoButton = btn({"aria-label": "Send a photo", onclick: () => photo.click()}, "Photo");
  const form = h("form", {class: "composer"}, replyBar, input, photo, photoButton, h("button", {type: "submit", class: "primary"}, "Send"));
  let replyTo = null; // the message answered, or null
  let editing = null; // the message being edited here: {seq, close}, or null
  const readers = new Map();
  let lastSeq = 0;
  let typingTimer = null;
  let lastTyping = 0;
  let stopped = false;
  // Read markers: at most one frame a second, the highest seq, only when it moved.
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

  /** Changes a message (edit, delete, reaction, vote) and shows the server's answer. */
  const change = async (method, path, body) => {
    try { update(await api(method, `/v1/rooms/${roomID}/messages/${path}`, body)); } catch (e) { replace(connection, e.message); }
  };
  // A closed time poll made a game: where and what, from the room's game or group.
  const game = {place, sport, schedule: async (m, body) => {
    const made = await api("POST", `/v1/rooms/${roomID}/messages/${m.seq}/poll/schedule`, body);
    update(made.message);
    return made;
  }};
  const remove = (m) => change("DELETE", m.seq);
  const toggle = (m, emoji) => {
    const mine = m.reactions?.some((r) => r.emoji === emoji && r.user_ids.includes(user.id));
    return mine ? change("DELETE", `${m.seq}/reactions?emoji=${encodeURIComponent(emoji)}`) : change("POST", `${m.seq}/reactions`, {emoji});
  };

  /** Sets (null: calls off) the message the next one answers. */
  function replyingTo(m, {focus = true} = {}) {
    replyTo = m;
    replyBar.hidden = !m;
    if (m) {
      replace(replyText, `Replying to ${m.sender.id === user.id ? "yourself" : m.sender.name}: “${quoted(m.body)}” `);
      input.setAttribute("aria-describedby", replyText.id);
    } else {
      input.removeAttribute("aria-describedby");
    }
    if (focus) input.focus();
  }

  /** The message's text replaced by a form that edits it. */
  function edit(m, element) {
    editing?.close(); // one message at a time
    const text = h("input", {name: "body", value: m.body, maxlength: "2000", autocomplete: "off", "aria-label": "Edit message"});
    // Closing draws the message as it is now.
    const done = () => {
      if (editing?.seq !== m.seq) return;
      editing = null;
      redraw(messages.get(m.seq));
    };
    editing = {seq: m.seq, close: done};
    const form = h("form", {class: "edit"}, text,
      h("button", {type: "submit", class: "primary"}, "Save"),
      btn({onclick: done}, "Cancel"));
    form.addEventListener("submit", async (e) => {
      e.preventDefault();
      const body = text.value.trim();
      if (!body) return;
      if (body === messages.get(m.seq).body) return done(); // unchanged: not "edited"
      try {
        const saved = await api("PATCH", `/v1/rooms/${roomID}/messages/${m.seq}`, {body});
        done();
        update(saved);
      } catch (error) {
        replace(connection, error.message);
      }
    });
    text.addEventListener("keydown", (e) => { if (e.key === "Escape") done(); });
    element.querySelector(".body").replaceWith(form);
    element.querySelector(".actions")?.remove();
    text.focus();
  }

  /** A message quoted in the reply that answers it (`reply_to`'s fields). */
  const quote = (r) => h("blockquote", {class: "quote"}, `${r.sender.name}: ${r.deleted ? "a deleted message" : r.preview}`);

  const bubble = (m) => {
    const mine = m.sender.id === user.id;
    const live = !m.deleted && m.id;
    // What each control's label says it acts on.
    const about = `${mine ? "your message" : `${m.sender.name}’s message`} “${m.body.slice(0, 40)}”`;
    const element = h("li", {class: [mine ? "mine" : "", m.deleted ? "deleted" : ""].join(" ").trim(), dataset: {seq: m.seq}},
      h("span", {class: "from"}, mine ? "You" : m.sender.name),
      m.reply_to ? quote(m.reply_to) : null,
      h("span", {class: "body"}, m.deleted ? "Message deleted" : m.body),
      m.edited_at && !m.deleted ? h("span", {class: "meta"}, " (edited)") : null,
      m.attachment ? h("img", {src: m.attachment.urls["320"], alt: "An image", class: "attachment"}) : null,
      m.poll ? withPolls((p) => p.pollView(m, user, change, game)) : null,
      // Each emoji, pressed when it is the reader's.
      m.reactions?.length ? h("span", {class: "reactions"}, m.reactions.map((r) =>
        btn({class: "reaction", "aria-pressed": String(r.user_ids.includes(user.id)), disabled: !live, onclick: () => toggle(m, r.emoji)}, `${r.emoji} ${r.count}`))) : null,
      live ? h("div", {class: "actions"},
        btn({class: "link", "aria-label": `Reply to ${about}`, onclick: () => replyingTo(m)}, "Reply"),
        h("details", {class: "react"}, h("summary", {"aria-label": `React to ${about}`}, "React"),
          h("span", {class: "emoji"}, REACTIONS.map((emoji) =>
            btn({"aria-label": `React with ${emoji}`, "aria-pressed": String(Boolean(m.reactions?.some((r) => r.emoji === emoji && r.user_ids.includes(user.id)))),
              onclick: (e) => { e.target.closest("details").open = false; toggle(m, emoji); }}, emoji)))),
        mine && Date.now() - Date.parse(m.created_at) < EDIT_WINDOW_MS
          ? btn({class: "link", "aria-label": `Edit ${about}`, onclick: () => edit(m, element)}, "Edit") : null,
        mine ? btn({class: "link", "aria-label": `Delete ${about}`, onclick: () => remove(m)}, "Delete") : reportControl("message", m.id, about),
        m.attachment && !mine ? reportControl("photo", m.attachment.id, `the image in ${about}`) : null) : null);
    return element;
  };

  /** Draws a shown message again; the focused control keeps the focus, or else its first control takes it. */
  function redraw(m) {
    const shown = list.querySelector(`li[data-seq="${m.seq}"]`);
    if (!shown) return;
    const focused = shown.contains(document.activeElement) ? document.activeElement : null;
    const key = (element) => element.getAttribute("aria-label") ?? element.textContent;
    const fresh = bubble(m);
    shown.replaceWith(fresh);
    if (!focused) return;
    const controls = [...fresh.querySelectorAll("button, summary")];
    (controls.find((c) => key(c) === key(focused)) ?? controls.find((c) => key(c).startsWith(key(focused).split(" ")[0])) ?? controls[0])?.focus();
  }

  /** A message changed: it is drawn again with the replies quoting it; an older answer (lower change_seq) changes nothing. */
  function update(m) {
    const held = messages.get(m.seq);
    if (held?.change_seq > m.change_seq) return;
    if (list.querySelector(`li[data-seq="${m.seq}"]`)) {
      messages.set(m.seq, m);
      if (editing?.seq === m.seq && m.deleted) editing = null; // nothing left to edit
      if (editing?.seq !== m.seq) redraw(m);
    }
    for (const [seq, reply] of messages) {
      if (reply.reply_to?.seq !== m.seq || !reply.id) continue;
      const quote = {...reply.reply_to, deleted: Boolean(m.deleted), preview: m.deleted ? "" : quoted(m.body)};
      messages.set(seq, {...reply, reply_to: quote});
      if (editing?.seq !== seq) redraw(messages.get(seq));
    }
    if (replyTo?.seq === m.seq) {
      if (m.deleted) replace(connection, "The message you were replying to was deleted.");
      replyingTo(m.deleted ? null : m, {focus: false});
    }
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
    else if (frame.type === "poll_votes") {
      // Only the votes changed: the counts go into the poll held.
      const held = messages.get(frame.seq);
      if (!held?.poll) return;
      const options = held.poll.options.map((o, i) => ({...o, count: frame.counts[i] ?? o.count,
        user_ids: held.poll.one_per_option ? (frame.taken_by[i] ? [frame.taken_by[i]] : []) : o.user_ids}));
      update({...held, change_seq: frame.after_change, poll: {...held.poll, options, voters_count: frame.voters_count, my_votes: frame.my_votes}});
    }
    else if (frame.type === "sent" && pending.has(frame.client_id) && !messages.has(frame.seq)) {
      // Stored: the bubble is a message now.
      const element = pending.get(frame.client_id);
      pending.delete(frame.client_id);
      element.classList.remove("pending");
      element.querySelector(".sending")?.remove();
      element.dataset.seq = frame.seq;
      // lastSeq moves when the message itself arrives, in order.
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
      // Refused for good: the bubble says so.
      const element = pending.get(frame.client_id);
      pending.delete(frame.client_id);
      if (element) {
        element.classList.replace("pending", "failed");
        replace(element.querySelector(".sending"), ` · not sent: ${frame.message}`);
      }
    } else if (frame.type === "error" && !frame.client_id && RETRY.has(frame.code)) {
      // A read marker refused for now: sent again later.
      readSent = 0;
      setTimeout(markRead, (frame.retry_after ?? 2) * 1000);
    } else if (frame.type === "error" && !frame.client_id) replace(connection, frame.message);
  };
  const onState = () => replace(connection, realtime.open ? "" : "Reconnecting… your messages will be sent when the connection is back.");
  realtime.addEventListener("state", onState);

  const asking = h("details", {class: "ask-poll"}, h("summary", "Ask a poll"));
  // The form's part is fetched when the poll is first asked.
  asking.addEventListener("toggle", () => {
    if (asking.open && asking.children.length === 1) asking.append(withPolls((p) => p.pollForm(roomID, () => { asking.open = false; })));
  });
  let stop = () => {};
  get(`/v1/rooms/${roomID}/messages?limit=100`).then((page) => {
    if (stopped) return; // the screen was left before the history came
    for (const m of page.items) add(m);
    // The page holds every change up to its newest change_seq.
    const afterChange = Math.max(0, ...page.items.map((m) => m.change_seq));
    stop = realtime.follow(roomID, () => lastSeq, afterChange, listener);
    onState();
  }).catch((e) => replace(connection, e.message));

  /** Shows a message being sent and sends it (`upload` first stores its photo). */
  function sendNew(body, upload) {
    const clientID = crypto.randomUUID();
    const extra = replyTo ? {reply_to: replyTo.seq} : {};
    const sending = h("span", {class: "sending"}, upload ? " · uploading the photo" : " · sending");
    const quoting = replyTo ? quote({sender: replyTo.sender, preview: quoted(replyTo.body), deleted: false}) : null;
    const element = h("li", {class: "mine pending"}, h("span", {class: "from"}, "You"), quoting, h("span", {class: "body"}, body || "📷 Photo"), sending);
    pending.set(clientID, element);
    list.append(element);
    list.scrollTop = list.scrollHeight;
    input.value = "";
    replyingTo(null);
    if (!upload) return realtime.say(roomID, clientID, body, extra);
    upload().then((media) => {
      replace(sending, " · sending");
      realtime.say(roomID, clientID, body, {...extra, attachment_id: media.id});
    }).catch((error) => {
      pending.delete(clientID);
      element.classList.replace("pending", "failed");
      replace(sending, ` · not sent: ${error.message}`);
    });
  }

  form.addEventListener("submit", (e) => {
    e.preventDefault();
    const body = input.value.trim();
    if (body) sendNew(body);
  });
  photo.addEventListener("change", () => {
    const file = photo.files[0];
    photo.value = "";
    if (!file) return;
    const upload = new FormData();
    upload.append("file", file);
    sendNew(input.value.trim(), () => api("POST", "/v1/media?use=chat", upload));
  });
  input.addEventListener("input", () => {
    if (Date.now() - lastTyping > 3000) { lastTyping = Date.now(); realtime.typing(roomID); }
  });

  return {
    element: h("div", {class: "chat"}, connection, log, typing, readLine, form, asking),
    stop: () => {
      stopped = true;
      stop();
      clearTimeout(readTimer);
      realtime.removeEventListener("state", onState);
      document.removeEventListener("visibilitychange", markRead);
    },
  };
}
