// One event: details, cover, attendees, join / leave (with the waitlist position),
// invitations, and the live chat.
import {del, get, me, post, query} from "../api.js";
import {field, h, replace, showErrors, status, when} from "../dom.js";
import {realtime} from "../realtime.js";

export function eventView(id) {
  const section = h("section", {class: "event"}, status("Loading the event…"));
  let stopChat = null;
  let gone = false;

  async function render() {
    let event;
    let user;
    try {
      [event, user] = await Promise.all([get(`/v1/events/${id}`), me()]);
    } catch (error) {
      replace(section, h("h1", {}, "Event"), status(error.status === 404 ? "This event does not exist, or is not visible to you." : error.message));
      return;
    }
    if (gone) return;
    const member = event.i_organise || event.my_status === "going" || event.my_status === "waitlisted";
    const cover = event.image_urls ? h("img", {class: "cover", src: event.image_urls["1280"] ?? event.image_url, alt: ""}) : null;
    const place = event.capacity === null ? "No limit on places" : event.spots_left > 0 ? `${event.spots_left} of ${event.capacity} places left` : "Full: joining puts you on the waitlist";
    const summary = h("p", {class: "form-error", role: "alert", hidden: true});
    const actions = h("div", {class: "actions"});
    if (event.i_organise) {
      actions.append(h("a", {class: "button", href: `#/events/${id}/edit`}, "Edit"),
        h("button", {type: "button", class: "danger", onclick: async () => {
          if (!confirm("Cancel this event? Everyone attending is told.")) return;
          try { await del(`/v1/events/${id}`); render(); } catch (error) { showErrors(section, error, summary); }
        }}, "Cancel event"));
    } else if (event.status === "active") {
      const joined = event.my_status;
      actions.append(h("button", {type: "button", class: joined ? "" : "primary", onclick: async () => {
        try {
          if (joined) await del(`/v1/events/${id}/attendance`);
          else await post(`/v1/events/${id}/attendance`);
          render();
        } catch (error) { showErrors(section, error, summary); }
      }}, joined ? "Leave" : event.spots_left === 0 ? "Join the waitlist" : "Join"));
    }
    const myPlace = event.my_status === "going" ? h("p", {class: "pill going"}, "You are going")
      : event.my_status === "waitlisted" ? h("p", {class: "pill waitlisted", "data-testid": "waitlist-position"}, `You are number ${event.my_position} on the waitlist`) : null;
    const attendees = h("ul", {class: "attendees"});
    const chat = h("div", {class: "chat-slot"});
    replace(section,
      cover,
      h("p", {class: "sport"}, event.sport.name),
      h("h1", {}, event.title),
      event.status === "cancelled" ? h("p", {class: "pill cancelled"}, "Cancelled") : null,
      h("dl", {class: "facts"},
        h("dt", {}, "When"), h("dd", {}, `${when(event.starts_at)} – ${when(event.ends_at)}`),
        h("dt", {}, "Where"), h("dd", {}, event.address || `${event.location.lat.toFixed(4)}, ${event.location.lon.toFixed(4)}`),
        h("dt", {}, "Organiser"), h("dd", {}, event.organiser.name),
        h("dt", {}, "Places"), h("dd", {}, `${event.going_count} going, ${event.waitlist_count} waiting · ${place}`)),
      event.description ? h("p", {class: "description"}, event.description) : null,
      myPlace, summary, actions,
      h("h2", {}, "Who is coming"), attendees,
      member && event.status === "active" ? inviteForm(id) : null,
      h("h2", {}, "Chat"), chat);
    get(`/v1/events/${id}/attendees?limit=100`).then((page) => {
      replace(attendees, page.items.map((a) => h("li", {}, a.name, a.is_organiser ? " (organiser)" : "", a.status === "waitlisted" ? ` — waitlist #${a.position}` : "")));
    }).catch((error) => replace(attendees, h("li", {}, error.message)));
    stopChat?.();
    if (member) {
      const room = chatRoom(id, user);
      chat.append(room.element);
      stopChat = room.stop;
    } else {
      chat.append(h("p", {}, "Join the event to read and write in its chat."));
    }
  }

  render();
  return {element: section, leave: () => { gone = true; stopChat?.(); }};
}

function inviteForm(eventID) {
  const people = h("select", {name: "user_ids"}, h("option", {value: ""}, "Someone nearby…"));
  const summary = h("p", {class: "form-error", role: "alert", hidden: true});
  const done = status("");
  const form = h("form", {class: "invite", novalidate: true}, h("h2", {}, "Invite"), summary, field("Person", people), h("button", {type: "submit"}, "Invite"), done);
  me().then((user) => user.location
    ? get(`/v1/users/nearby${query({lat: user.location.lat, lon: user.location.lon, radius_km: 25, limit: 100})}`)
    : {items: []}).then((page) => people.append(...page.items.map((p) => h("option", {value: p.id}, `${p.name} (${p.distance_km} km)`)))).catch(() => {});
  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    if (!people.value) { showErrors(form, {message: "Choose someone to invite.", fields: {user_ids: "choose someone"}}, summary); return; }
    try {
      await post(`/v1/events/${eventID}/invitations`, {user_ids: [people.value]});
      showErrors(form, null, summary);
      replace(done, `Invited ${people.selectedOptions[0].textContent.replace(/ \(.*$/, "")}.`);
    } catch (error) { showErrors(form, error, summary); }
  });
  return form;
}

/** The chat: history, then live messages; typing and read markers; sending survives a dropped connection. */
function chatRoom(eventID, user) {
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
      realtime.read(eventID, lastSeq);
    }, 1000);
  };
  document.addEventListener("visibilitychange", markRead);

  const bubble = (m) => h("li", {class: m.sender.id === user.id ? "mine" : "", dataset: {seq: m.seq}},
    h("span", {class: "from"}, m.sender.id === user.id ? "You" : m.sender.name), h("span", {class: "body"}, m.body),
    m.attachment ? h("img", {src: m.attachment.urls["320"], alt: "An image", class: "attachment"}) : null);

  function add(m) {
    if (messages.has(m.seq)) return;
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
    else if (frame.type === "sent" && pending.has(frame.client_id) && !messages.has(frame.seq)) {
      // Stored: the bubble is a message now (the copy the socket relays, if it comes, is the same seq).
      const element = pending.get(frame.client_id);
      pending.delete(frame.client_id);
      element.classList.remove("pending");
      element.querySelector(".sending")?.remove();
      element.dataset.seq = frame.seq;
      messages.set(frame.seq, {seq: frame.seq, client_id: frame.client_id, sender: user});
      lastSeq = Math.max(lastSeq, frame.seq);
    }
    else if (frame.type === "typing" && frame.user.id !== user.id) {
      replace(typing, `${frame.user.name} is typing…`);
      clearTimeout(typingTimer);
      typingTimer = setTimeout(() => replace(typing, ""), 4000);
    } else if (frame.type === "read" && frame.user.id !== user.id) {
      const name = [...messages.values()].find((m) => m.sender.id === frame.user.id)?.sender.name ?? "someone";
      readers.set(frame.user.id, {seq: frame.seq, name});
      showReaders();
    } else if (frame.type === "unsubscribed") replace(connection, "You no longer attend this event.");
    else if (frame.type === "error" && frame.client_id && !["unavailable", "rate_limited"].includes(frame.code)) {
      // Refused for good (too long, not a member…): the bubble says so and keeps the text.
      const element = pending.get(frame.client_id);
      pending.delete(frame.client_id);
      if (element) {
        element.classList.replace("pending", "failed");
        replace(element.querySelector(".sending"), ` · not sent: ${frame.message}`);
      }
    } else if (frame.type === "error" && !frame.client_id) replace(connection, frame.message);
  };
  const onState = () => replace(connection, realtime.open ? "" : "Reconnecting… your messages will be sent when the connection is back.");
  realtime.addEventListener("state", onState);

  let stop = () => {};
  get(`/v1/events/${eventID}/messages?limit=100`).then((page) => {
    if (stopped) return; // the screen was left before the history came
    for (const m of page.items) add(m);
    stop = realtime.follow(eventID, () => lastSeq, listener);
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
    realtime.say(eventID, clientID, body);
    input.value = "";
  });
  input.addEventListener("input", () => {
    if (Date.now() - lastTyping > 3000) { lastTyping = Date.now(); realtime.typing(eventID); }
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
