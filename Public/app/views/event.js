// One event: details, cover, attendees, join / leave (with the waitlist position),
// invitations, and the live chat.
import {api, del, get, me, post, query} from "../api.js";
import {btn, field, formError, h, later, option, replace, showErrors, status, when} from "../dom.js";
import {chatPanel} from "./chat.js";
import {reportControl} from "./report.js";

export function eventView(id) {
  const section = h("section", {class: "event"}, status("Loading the event…"));
  let stopChat = null;
  let gone = false;
  let offerTimer = null;

  async function render() {
    let event;
    let user;
    try {
      [event, user] = await Promise.all([get(`/v1/events/${id}`), me()]);
    } catch (error) {
      replace(section, h("h1", "Event"), status(error.status === 404 ? "This event does not exist, or is not visible to you." : error.message));
      return;
    }
    if (gone) return;
    clearInterval(offerTimer);
    const member = event.i_organise || event.my_status === "going" || event.my_status === "waitlisted";
    const cover = event.image_urls ? h("img", {class: "cover", src: event.image_urls["1280"] ?? event.image_url, alt: ""}) : null;
    const place = event.capacity === null ? "No limit on places" : event.spots_left > 0 ? `${event.spots_left} of ${event.capacity} places left` : "Full: joining puts you on the waitlist";
    const summary = formError();
    const actions = h("div", {class: "actions"});
    // The event in the device's calendar.
    actions.append(h("a", {class: "button", href: `/v1/events/${id}/calendar.ics`, download: "sportlook-event.ics"}, "Add to calendar"));
    if (event.i_organise) {
      actions.append(h("a", {class: "button", href: `#/events/${id}/edit`}, "Edit"),
        btn({class: "danger", onclick: async () => {
          if (!confirm("Cancel this event? Everyone attending is told.")) return;
          try { await del(`/v1/events/${id}`); render(); } catch (e) { showErrors(section, e, summary); }
        }}, "Cancel event"));
      if (event.status === "active" && new Date(event.starts_at) > new Date()) {
        const reminded = status("");
        actions.append(btn({onclick: async () => {
          try {
            await post(`/v1/events/${id}/remind`);
            replace(reminded, "Everyone going will be reminded now.");
          } catch (e) { replace(reminded, e.message); }
        }}, "Remind everyone"), reminded);
      }
    } else if (event.status === "active" && event.answer_deadline && new Date(event.answer_deadline) <= new Date() && !event.my_status) {
      actions.append(h("p", {class: "pill"}, "Answers are closed"));
    } else if (event.status === "active") {
      const joined = event.my_status === "going" || event.my_status === "waitlisted";
      const act = (call) => async () => {
        try { await call(); render(); } catch (e) { showErrors(section, e, summary); }
      };
      actions.append(btn({class: joined ? "" : "primary", onclick: act(() => joined ? del(`/v1/events/${id}/attendance`) : post(`/v1/events/${id}/attendance`))},
        joined ? "Leave" : event.spots_left === 0 ? "Join the waitlist" : "Join"));
      // Maybe takes no place.
      if (event.my_status === "maybe") actions.append(btn({onclick: act(() => del(`/v1/events/${id}/attendance`))}, "Not coming"));
      else actions.append(btn({onclick: act(() => post(`/v1/events/${id}/maybe`))}, "Maybe"));
    }
    if (!event.i_organise) actions.append(reportControl("event", id, `the event ${event.title}`));
    if (!event.i_organise && event.image_url) actions.append(reportControl("photo", id, `the cover of ${event.title}`));
    const myPlace = event.my_status === "going" ? h("p", {class: "pill going"}, "You are going")
      : event.my_status === "waitlisted" ? h("p", {class: "pill waitlisted", "data-testid": "waitlist-position"}, `You are number ${event.my_position} on the waitlist`)
      : event.my_status === "maybe" ? h("p", {class: "pill"}, "You said maybe: you will be asked to decide") : null;
    const attendees = h("ul", {class: "attendees"});
    const chat = h("div", {class: "chat-slot"});
    const now = new Date(), starts = new Date(event.starts_at), ends = new Date(event.ends_at);
    // Check-in: the people going, near the place, around the start.
    const checkIn = event.status === "active" && event.my_status === "going" && !event.i_organise
      && now >= new Date(starts.getTime() - 30 * 60_000) && now <= ends ? checkInPanel() : null;
    // The organiser's attendance sheet.
    const sheet = event.i_organise && event.status === "active" && now >= starts && now <= new Date(ends.getTime() + 48 * 3_600_000) ? sheetPanel() : null;
    replace(section,
      cover,
      h("p", {class: "sport"}, event.sport.name),
      h("h1", event.title),
      event.status === "cancelled" ? h("p", {class: "pill cancelled"}, "Cancelled") : null,
      event.group_id ? h("p", {class: "pill", "data-testid": "group-game"}, h("a", {href: `#/groups/${event.group_id}`}, event.members_only ? "A members-only game of its group" : "A game of its group")) : null,
      h("dl", {class: "facts"},
        h("dt", "When"), h("dd", `${when(event.starts_at)} – ${when(event.ends_at)}`),
        h("dt", "Where"), h("dd", event.address || `${event.location.lat.toFixed(4)}, ${event.location.lon.toFixed(4)}`),
        h("dt", "Organiser"), h("dd", event.organiser.name),
        event.answer_deadline ? h("dt", "Answers close") : null, event.answer_deadline ? h("dd", {"data-testid": "answer-deadline"}, when(event.answer_deadline)) : null,
        h("dt", "Places"), h("dd", `${event.going_count} going, ${event.waitlist_count} waiting · ${place}`)),
      event.description ? h("p", {class: "description"}, event.description) : null,
      event.min_players && event.status === "active" ? h("p", {class: event.game_on ? "pill going" : "pill", "data-testid": "game-on"}, event.game_on
        ? "Game on: enough players are going"
        : `Needs ${event.min_players} player${event.min_players === 1 ? "" : "s"} (${event.going_count} going): decided ${when(new Date(new Date(event.starts_at).getTime() - event.decide_minutes * 60_000).toISOString())}`) : null,
      event.level || event.audience !== "anyone" ? h("p", {class: "pill", "data-testid": "who-for"}, [
        event.level ? `Levels ${event.level.min}–${event.level.max}` : null,
        event.audience !== "anyone" ? `for ${event.audience === "mixed" ? "mixed teams" : event.audience}` : null,
      ].filter(Boolean).join(", ")) : null,
      event.min_record ? h("p", {class: "pill"}, `For players with at most ${event.min_record.max_no_shows} no-show${event.min_record.max_no_shows === 1 ? "" : "s"} in their last ${event.min_record.last_games} games`) : null,
      myPlace, event.my_offer_expires_at && event.status === "active" ? offerPanel(event) : null, summary, actions, checkIn, sheet,
      event.status === "active" && event.my_status === "going" && now < new Date(ends.getTime() + 48 * 3_600_000) ? later("teams", (m) => m.teamsPanel(id, event.i_organise, now >= starts)) : null,
      event.price ? later("money", (m) => m.moneyPanel(event)) : null,
      event.status === "active" && event.my_status === "going" && !event.i_organise && now < starts ? substitute() : null,
      event.series_id ? seriesPanel(event, render) : null,
      h("h2", "Who is coming"), attendees,
      member && event.status === "active" ? inviteForm(id) : null,
      h("h2", "Chat"), chat);
    if (event.i_organise || event.my_status === "going") {
      get(`/v1/events/${id}/attendees?limit=100`).then((page) => {
        replace(attendees, page.items.map((a) => h("li", {"data-testid": "attendee"}, a.name, a.is_organiser ? " (organiser)" : "",
          a.status === "waitlisted" ? ` — waitlist #${a.position}` : "",
          event.i_organise && !a.is_organiser ? removeButtons(a) : null)));
      }).catch((e) => replace(attendees, h("li", e.message)));
    } else {
      replace(attendees, h("li", "Who is coming is shown to the people going and the organiser."));
    }
    stopChat?.();
    if (event.i_organise || event.my_status === "going") {
      const room = chatPanel(id, user, {left: "You no longer attend this event.", place: event.location, sport: event.sport.slug});
      chat.append(room.element);
      stopChat = room.stop;
    } else if (event.my_status === "waitlisted") {
      chat.append(h("p", "The chat is for the people going: it opens for you when a place does."));
    } else {
      chat.append(h("p", "Join the event to read and write in its chat."));
    }
  }

  // A freed place offered from the waitlist.
  function offerPanel(event) {
    const expires = new Date(event.my_offer_expires_at);
    const left = h("p", {"data-testid": "offer-countdown", role: "timer", "aria-live": "off"});
    const note = status("");
    const tick = () => {
      const seconds = Math.max(0, Math.round((expires - Date.now()) / 1000));
      replace(left, seconds > 0 ? `Yours for ${Math.floor(seconds / 60)} min ${String(seconds % 60).padStart(2, "0")} s more` : "The offer has run out.");
      if (seconds === 0) clearInterval(offerTimer);
    };
    tick();
    offerTimer = setInterval(tick, 1000);
    const act = (call) => async () => { try { await call(); render(); } catch (e) { replace(note, e.message); } };
    return h("section", {class: "card offer", "aria-labelledby": "offer-heading"}, h("h2", {id: "offer-heading"}, "A place for you"),
      h("p", "A place opened up. It is held for you until the countdown ends, then it passes to the next in line."), left,
      h("div", {class: "actions"},
        btn({class: "primary", onclick: act(() => post(`/v1/events/${id}/offer`))}, "Take the place"),
        btn({onclick: act(() => del(`/v1/events/${id}/offer`))}, "Decline")), note);
  }

  // Cannot come: people nearby who fit the game are offered the place.
  function substitute() {
    const note = status("");
    return h("p", btn({onclick: () => post(`/v1/events/${id}/substitute`).then((r) => replace(note, `Offered to ${r.offered_count} nearby.`), (e) => replace(note, e.message))},
      "Ask for a substitute"), note);
  }

  // The browser's position: the server says whether it is near enough.
  function checkInPanel() {
    const note = status("");
    const button = btn({class: "primary"}, "Check in");
    button.addEventListener("click", () => {
      if (!navigator.geolocation) { replace(note, "This browser cannot tell where it is."); return; }
      button.disabled = true;
      navigator.geolocation.getCurrentPosition(async (position) => {
        try {
          await post(`/v1/events/${id}/check-in`, {location: {lat: Number(position.coords.latitude.toFixed(6)), lon: Number(position.coords.longitude.toFixed(6))}});
          replace(note, "You are checked in.");
        } catch (error) {
          replace(note, error.fields?.location ? `Your position ${error.fields.location}.` : error.message);
          button.disabled = false;
        }
      }, () => { replace(note, "Allow this page to use your location to check in."); button.disabled = false; }, {enableHighAccuracy: true, timeout: 15_000});
    });
    return h("section", {class: "card", "aria-labelledby": "check-in-heading"}, h("h2", {id: "check-in-heading"}, "Check in"),
      h("p", "At the place? Check in so the organiser knows you came."), button, note);
  }

  // Who came: the check-in and the organiser's mark.
  function sheetPanel() {
    const list = h("ul", {class: "sheet"}, h("li", "Loading…"));
    const labels = {attended: "Came", no_show: "No-show", excused: "Excused", late_cancel: "Left late"};
    get(`/v1/events/${id}/sheet`).then((page) => replace(list, page.items.length ? page.items.map((row) => {
      const choice = h("select", {"aria-label": `Mark ${row.user.name}`},
        option("", row.checked_in_at ? "Checked in" : row.late_cancelled_at ? "Left late" : "Not marked"),
        ...["attended", "no_show", "excused"].map((o) => option(o, labels[o], row.mark === o)));
      const saved = h("span", {class: "hint", role: "status"});
      choice.addEventListener("change", async () => {
        try {
          await api("PUT", `/v1/events/${id}/sheet/${row.user.id}`, {outcome: choice.value || null});
          replace(saved, "Saved");
        } catch (e) { replace(saved, e.message); }
      });
      const record = row.record && row.record.games ? ` · ${row.record.attended} of ${row.record.games} games attended, ${row.record.no_shows} no-show${row.record.no_shows === 1 ? "" : "s"}` : "";
      return h("li", {"data-testid": "sheet-row"}, h("span", row.user.name, record), choice, saved);
    }) : h("li", "Nobody to mark."))).catch((e) => replace(list, h("li", e.message)));
    return h("section", {class: "card", "aria-labelledby": "sheet-heading"}, h("h2", {id: "sheet-heading"}, "Who came"), list);
  }

  // The organiser takes someone out, and may ban them from coming back.
  function removeButtons(attendee) {
    const remove = async (ban) => {
      const question = ban ? `Remove ${attendee.name} and ban them from this event?` : `Remove ${attendee.name} from this event?`;
      if (!confirm(question)) return;
      try { await del(`/v1/events/${id}/attendees/${attendee.id}${ban ? "?ban=true" : ""}`); render(); } catch (e) { alert(e.message); }
    };
    return h("span", {class: "attendee-actions"},
      btn({class: "small", onclick: () => remove(false), "aria-label": `Remove ${attendee.name}`}, "Remove"),
      btn({class: "small danger", onclick: () => remove(true), "aria-label": `Remove and ban ${attendee.name}`}, "Ban"));
  }

  render();
  return {element: section, leave: () => { gone = true; stopChat?.(); clearInterval(offerTimer); }};
}

function inviteForm(eventID) {
  const people = h("select", {name: "user_ids"}, option("", "Someone nearby…"));
  const summary = formError();
  const done = status("");
  const form = h("form", {class: "invite", novalidate: true}, h("h2", "Invite"), summary, field("Person", people), h("button", {type: "submit"}, "Invite"), done);
  me().then((user) => user.location
    ? get(`/v1/users/nearby${query({lat: user.location.lat, lon: user.location.lon, radius_km: 25, limit: 100})}`)
    : {items: []}).then((page) => people.append(...page.items.map((p) => option(p.id, `${p.name} (${p.distance_km} km)`)))).catch(() => {});
  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    if (!people.value) { showErrors(form, {message: "Choose someone to invite.", fields: {user_ids: "choose someone"}}, summary); return; }
    try {
      await post(`/v1/events/${eventID}/invitations`, {user_ids: [people.value]});
      showErrors(form, null, summary);
      replace(done, `Invited ${people.selectedOptions[0].textContent.replace(/ \(.*$/, "")}.`);
    } catch (e) { showErrors(form, e, summary); }
  });
  return form;
}

const dayWords = {MO: "Monday", TU: "Tuesday", WE: "Wednesday", TH: "Thursday", FR: "Friday", SA: "Saturday", SU: "Sunday"};

/** "Every Tuesday at 19:00" from the series' rule. */
function ruleInWords(series) {
  const parts = Object.fromEntries(series.rule.split(";").map((p) => p.split("=")));
  if (parts.FREQ !== "WEEKLY") return `${series.rule} at ${series.start_time}`;
  const days = (parts.BYDAY ?? "").split(",").map((d) => dayWords[d] ?? d);
  const every = parts.INTERVAL && parts.INTERVAL !== "1" ? `Every ${parts.INTERVAL} weeks on` : "Every";
  return `${every} ${days.join(" and ")} at ${series.start_time}`;
}

/** "This and following": a new start time from this game on. */
function changeFollowing(series, event, note, rerender) {
  const time = h("input", {name: "start_time", type: "time", required: true, value: series.start_time});
  const form = h("form", {class: "inline"}, h("h3", "Change this and following games"), field("New start time", time),
    h("button", {type: "submit"}, "Change from this date on"));
  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    try {
      await post(`/v1/series/${series.id}/split`, {from: event.occurrence_date, start_time: time.value});
      rerender();
    } catch (e) { replace(note, e.message); }
  });
  return form;
}

/** The game's series: its rule, becoming a regular; the organiser's regulars and skips. */
function seriesPanel(event, rerender) {
  const panel = h("section", {class: "card series", "aria-labelledby": "series-heading"}, h("h2", {id: "series-heading"}, "Weekly game"), status("Loading…"));
  (async () => {
    try {
      const series = await get(`/v1/series/${event.series_id}`);
      const note = status("");
      const regular = btn({}, series.i_am_regular ? "Stop being a regular" : "Become a regular");
      regular.addEventListener("click", async () => {
        try {
          if (series.i_am_regular) await del(`/v1/series/${series.id}/regulars`); else await post(`/v1/series/${series.id}/regulars`);
          rerender();
        } catch (e) { replace(note, e.message); }
      });
      const parts = [h("p", `${ruleInWords(series)} · ${series.regulars_count} regular${series.regulars_count === 1 ? "" : "s"}`)];
      if (series.status === "ended") parts.push(h("p", "This series has ended."));
      else if (!event.i_organise) parts.push(h("p", "Regulars are on every game of the series; leaving one game leaves only that date."), regular);
      if (event.i_organise) {
        const list = h("ol", {class: "regulars"});
        get(`/v1/series/${series.id}/regulars`).then((page) => replace(list, page.items.length
          ? page.items.map((r) => h("li", {"data-testid": "regular"}, r.user.name)) : h("li", "No regulars yet.")));
        const skip = btn({class: "danger"}, "Skip this date");
        skip.addEventListener("click", async () => {
          if (!confirm("Skip this date? Everyone going is told.")) return;
          try { await post(`/v1/series/${series.id}/skips`, {date: event.occurrence_date}); rerender(); } catch (e) { replace(note, e.message); }
        });
        parts.push(h("h3", "Regulars"), list, event.status === "active" ? skip : null);
        if (series.status === "active" && event.status === "active" && new Date(event.starts_at) > new Date()) parts.push(changeFollowing(series, event, note, rerender));
      }
      replace(panel, h("h2", {id: "series-heading"}, "Weekly game"), ...parts, note);
    } catch (error) {
      replace(panel, h("h2", {id: "series-heading"}, "Weekly game"), status(error.message));
    }
  })();
  return panel;
}
