// Profile and settings: name, bio, sports, photo, location, discoverable; email
// verification; notifications on this browser; sessions; password; sign out.
import {api, del, get, patch, post, session, signOut, sportCatalogue} from "../api.js";
import {btn, field, fieldError, formError, h, option, replace, showErrors, status, when} from "../dom.js";
import {SlippyMap} from "../map.js";

export function profileView(settings) {
  const section = h("section", {class: "profile"}, status("Loading your profile…"));
  (async () => {
    let user;
    let sports;
    try {
      [user, sports] = await Promise.all([get("/v1/me"), sportCatalogue()]);
      session.user = user;
    } catch (error) {
      replace(section, h("h1", "Your profile"), status(error.message));
      return;
    }
    const name = h("input", {name: "name", required: true, maxlength: "80", value: user.name, autocomplete: "name"});
    const bio = h("textarea", {name: "bio", maxlength: "1000", rows: "3"}, user.bio);
    const discoverable = h("input", {name: "discoverable", type: "checkbox", checked: user.discoverable});
    const reminders = h("input", {name: "reminders", type: "checkbox", checked: user.reminders});
    const photo = h("input", {name: "photo_id", type: "file", accept: "image/jpeg,image/png"});
    const mine = new Set(user.sports);
    const sportBoxes = sports.map((s) => h("label", {class: "check"}, h("input", {type: "checkbox", name: "sports", value: s.slug, checked: mine.has(s.slug)}), s.name));
    let place = user.location;
    const where = h("p", {role: "status"}, place ? "Your area is set (kept to about 500 m)." : "Not set: choose your area on the map or use your location.");
    const map = new SlippyMap({tileURL: settings.tileURL, attribution: settings.attribution, center: place ?? {lat: 48.8566, lon: 2.3522}, zoom: 12, label: "Your area",
      onPick: (p) => { place = p; replace(where, `Area set at ${p.lat.toFixed(3)}, ${p.lon.toFixed(3)}.`); }});
    if (place) map.setMarker(place);
    const locate = btn({}, "Use my location");
    locate.addEventListener("click", () => navigator.geolocation.getCurrentPosition((p) => {
      place = {lat: p.coords.latitude, lon: p.coords.longitude};
      map.setCenter(place);
      map.setMarker(place);
      replace(where, "Area set from your location.");
    }, () => replace(where, "Your location is not available; choose on the map."), {timeout: 10_000}));
    const summary = formError();
    const saved = status("");
    const save = h("button", {type: "submit", class: "primary"}, "Save profile");
    const avatar = user.image_urls ? h("img", {class: "avatar large", src: user.image_urls["512"] ?? user.image_url, alt: "Your photo"}) : null;
    const form = h("form", {class: "card", novalidate: true},
      h("h1", "Your profile"), avatar, summary,
      field("Name", name), field("About you", bio), field("Photo", photo),
      h("fieldset", {class: "sports"}, h("legend", "Sports you play"), sportBoxes, fieldError("sports")),
      h("fieldset", h("legend", "Your area"), map.element, where, locate, fieldError("location")),
      h("label", {class: "check"}, discoverable, "Let people nearby find me"),
      h("label", {class: "check"}, reminders, "Remind me before the games I go to"),
      save, saved);
    form.addEventListener("submit", async (e) => {
      e.preventDefault();
      save.disabled = true;
      try {
        const changes = {
          name: name.value, bio: bio.value, discoverable: discoverable.checked, reminders: reminders.checked,
          sports: sportBoxes.map((l) => l.querySelector("input")).filter((i) => i.checked).map((i) => i.value),
        };
        if (place) changes.location = {lat: Number(place.lat.toFixed(6)), lon: Number(place.lon.toFixed(6))};
        if (photo.files[0]) {
          const upload = new FormData();
          upload.append("file", photo.files[0]);
          changes.photo_id = (await api("POST", "/v1/media?use=profile", upload)).id;
        }
        session.user = await patch("/v1/me", changes);
        sessionStorage.removeItem("sportlook.place");
        showErrors(form, null, summary);
        replace(saved, "Saved.");
      } catch (error) {
        showErrors(form, error, summary);
        replace(saved, "");
      } finally {
        save.disabled = false;
      }
    });
    replace(section, form, playerCard(user, sports), levelsCard(), recordCard(), emailCard(user), notificationsCard(), calendarCard(user), passwordCard(), sessionsCard(), dataCard(),
      h("div", {class: "card"}, h("h2", "Sign out"), btn({onclick: signOut}, "Sign out")));
    map.render();
  })();
  return {element: section};
}

function emailCard(user) {
  if (!user.email) return null;
  const card = h("div", {class: "card"}, h("h2", "Email"), h("p", user.email, user.email_verified ? " · verified" : " · not verified"));
  if (user.email_verified) return card;
  const code = h("input", {name: "code", inputmode: "numeric", pattern: "[0-9]{6}", maxlength: "6", autocomplete: "one-time-code"});
  const summary = formError();
  const note = status("");
  const form = h("form", {novalidate: true, hidden: true}, summary, field("Code from the mail", code), h("button", {type: "submit"}, "Verify"));
  const send = btn({}, "Send me a code");
  send.addEventListener("click", async () => {
    try { await post("/v1/auth/email/verify/start"); form.hidden = false; replace(note, "A code is on its way; it works for 15 minutes."); } catch (e) { replace(note, e.message); }
  });
  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    try { await post("/v1/auth/email/verify/finish", {code: code.value}); replace(card, h("h2", "Email"), h("p", user.email, " · verified")); } catch (e) { showErrors(form, e, summary); }
  });
  card.append(send, note, form);
  return card;
}

// Pushes to this browser (Web Push), where the Push API and a VAPID key exist.
function notificationsCard() {
  if (!("serviceWorker" in navigator) || !("PushManager" in window) || !("Notification" in window)) return null;
  const note = status("");
  const button = btn({}, "Turn on notifications");
  const card = h("div", {class: "card", hidden: true}, h("h2", "Notifications on this browser"),
    h("p", "Invitations, changes to your events and chat messages, even when SportLook is closed."), button, note);
  const stored = "sportlook.pushDevice";
  let key = null;
  const show = (on) => {
    replace(button, on ? "Turn off notifications" : "Turn on notifications");
    button.setAttribute("aria-pressed", on ? "true" : "false");
  };
  (async () => {
    try {
      key = (await get("/v1/push/vapid-public-key")).public_key;
    } catch {
      return; // This server does not push to browsers.
    }
    const registration = await navigator.serviceWorker.register("/sw.js");
    const current = await registration.pushManager.getSubscription();
    show(Boolean(current && localStorage.getItem(stored)));
    card.hidden = false;
  })().catch(() => {});
  button.addEventListener("click", async () => {
    button.disabled = true;
    try {
      const registration = await navigator.serviceWorker.ready;
      const current = await registration.pushManager.getSubscription();
      if (button.getAttribute("aria-pressed") === "true") {
        const id = localStorage.getItem(stored);
        if (id) await del(`/v1/me/devices/${id}`).catch(() => {});
        if (current) await current.unsubscribe();
        localStorage.removeItem(stored);
        show(false);
        replace(note, "Off: this browser gets no notifications.");
        return;
      }
      if (await Notification.requestPermission() !== "granted") {
        replace(note, "Notifications are blocked for this site in your browser's settings.");
        return;
      }
      const subscription = current ?? await registration.pushManager.subscribe({userVisibleOnly: true, applicationServerKey: bytes(key)});
      const device = await post("/v1/me/devices", {platform: "web", subscription: subscription.toJSON()});
      localStorage.setItem(stored, device.id);
      show(true);
      replace(note, "On: this browser gets notifications, even with SportLook closed.");
    } catch (error) {
      replace(note, `Notifications could not be turned on: ${error.message}`);
    } finally {
      button.disabled = false;
    }
  });
  return card;
}

// base64url text as bytes (a VAPID key for subscribe()).
function bytes(text) {
  const base64 = text.replace(/-/g, "+").replace(/_/g, "/") + "=".repeat((4 - (text.length % 4)) % 4);
  return Uint8Array.from(atob(base64), (c) => c.charCodeAt(0));
}

function passwordCard() {
  const current = h("input", {name: "current_password", type: "password", autocomplete: "current-password"});
  const next = h("input", {name: "new_password", type: "password", autocomplete: "new-password", minlength: "8", maxlength: "72"});
  const summary = formError();
  const done = status("");
  const form = h("form", {class: "card", novalidate: true}, h("h2", "Password"), summary, field("Current password", current), field("New password", next), h("button", {type: "submit"}, "Change password"), done);
  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    try {
      await post("/v1/me/password", {current_password: current.value, new_password: next.value});
      showErrors(form, null, summary);
      current.value = next.value = "";
      replace(done, "Changed; your other sessions have ended.");
    } catch (e) { showErrors(form, e, summary); }
  });
  return form;
}

/** A copy of everything the server holds about the person (once a day, kept a week). */
function dataCard() {
  const list = h("ul", {class: "exports"});
  const said = status("");
  const load = () => get("/v1/me/exports").then((page) => replace(list, page.items.map((e) => h("li", {},
    `Asked ${when(e.requested_at)} · `,
    e.download_path ? h("a", {href: e.download_path, download: "sportlook-data.zip"}, `Download (until ${when(e.expires_at)})`) : e.status === "pending" ? "Being prepared…" : "Expired")))).catch((e) => replace(said, e.message));
  const ask = btn({onclick: async () => {
    try {
      await post("/v1/me/export");
      replace(said, "Asked: you will be told when it is ready.");
      setTimeout(load, 1500);
    } catch (e) { replace(said, e.message); }
  }}, "Get a copy of my data");
  load();
  return h("div", {class: "card"}, h("h2", "Your data"), h("p", {class: "hint"}, "Everything SportLook holds about you, as one archive, once a day."), ask, said, list);
}

function sessionsCard() {
  const list = h("ul", {class: "sessions"});
  const card = h("div", {class: "card"}, h("h2", "Where you are signed in"), list);
  const load = () => get("/v1/me/sessions?limit=100").then((page) => replace(list, page.items.map((s) => h("li", {},
    s.user_agent ?? "Unknown device", s.current ? " (this one)" : "", h("span", {class: "meta"}, ` · since ${when(s.created_at)}`),
    s.current ? null : btn({onclick: () => del(`/v1/me/sessions/${s.id}`).then(load)}, "Sign it out"))))).catch((e) => replace(list, h("li", e.message)));
  load();
  return card;
}

/** The calendar feed: a secret link; a new one ends the old. */
function calendarCard(user) {
  const link = h("input", {type: "text", readonly: true, "aria-label": "Your calendar link", hidden: true});
  const note = status("");
  const make = btn({}, "Get my calendar link");
  const stop = btn({hidden: !user.calendar_feed}, "Stop my calendar feed");
  if (user.calendar_feed) replace(note, "Your calendar feed is on (its link was shown when it was made; a new one stops the old).");
  make.addEventListener("click", async () => {
    try {
      const feed = await post("/v1/me/calendar");
      link.value = location.origin + feed.path;
      link.hidden = false;
      stop.hidden = false;
      make.textContent = "Make a new link (the old one stops)";
      replace(note, "Subscribe to this link in your calendar app: your games appear there and follow every change.");
      link.select();
    } catch (e) { replace(note, e.message); }
  });
  stop.addEventListener("click", async () => {
    try {
      await del("/v1/me/calendar");
      link.hidden = true;
      stop.hidden = true;
      make.textContent = "Get my calendar link";
      replace(note, "Your calendar feed is stopped: the link shows nothing now.");
    } catch (e) { replace(note, e.message); }
  });
  return h("div", {class: "card"}, h("h2", "Calendar"),
    h("p", "The games you go to, in your phone's calendar."), make, link, stop, note);
}

/** The person's own record: their last 20 games. */
function recordCard() {
  const labels = {attended: "came", no_show: "no-show", late_cancel: "left late", excused: "excused"};
  const body = h("div", status("Loading…"));
  const card = h("div", {class: "card"}, h("h2", "Your record"), body);
  get("/v1/me/record").then((record) => replace(body,
    h("p", {"data-testid": "record-figures"}, record.games
      ? `${record.attended} of your last ${record.games} games attended · ${record.no_shows} no-show${record.no_shows === 1 ? "" : "s"} · ${record.late_cancellations} left late · ${record.excused} excused`
      : "No games on your record yet."),
    h("p", {class: "hint"}, "Only you see this in full; organisers see the figures for the people at their games."),
    record.items.length ? h("ul", record.items.map((g) => h("li", h("a", {href: `#/events/${g.event_id}`}, g.title), ` · ${when(g.starts_at)} · ${labels[g.outcome]}`))) : null,
  )).catch((e) => replace(body, status(e.message)));
  return card;
}

/** How results moved the player's levels, newest first. */
function levelsCard() {
  const list = h("ul", {"data-testid": "level-history"});
  get("/v1/me/levels/history").then((page) => replace(list, page.items.length ? page.items.map((m) =>
    h("li", `${m.sport}: ${m.before.toFixed(2)} → ${m.after.toFixed(2)} (level ${m.level}) · `, m.event_id && m.event_title ? h("a", {href: `#/events/${m.event_id}`}, m.event_title) : "a game"))
    : h("li", "Results of competitive games move your levels."))).catch((e) => replace(list, h("li", e.message)));
  return h("div", {class: "card"}, h("h2", "Your levels"), list);
}

/** The player's level in each sport and, if they wish, their gender (theirs alone). */
function playerCard(user, sports) {
  const card = h("form", {class: "card", novalidate: true}, h("h2", "Your game"), status("Loading…"));
  get("/v1/me/player").then((player) => {
    const names = Object.fromEntries(sports.map((s) => [s.slug, s.name]));
    const rated = [...new Set([...(user.sports ?? []), ...Object.keys(player.levels)])];
    const steps = Array.from({length: 15}, (_, i) => i / 2);
    const levels = rated.map((slug) => h("select", {name: `level-${slug}`, "data-sport": slug},
      option("", "Not rated"), ...steps.map((v) => option(String(v), String(v), player.levels[slug] === v))));
    const gender = h("select", {name: "gender"}, option("", "Rather not say"),
      option("woman", "Woman", player.gender === "woman"), option("man", "Man", player.gender === "man"));
    const summary = formError();
    const saved = status("");
    replace(card, h("h2", "Your game"), summary,
      h("p", {class: "hint"}, "Levels go from 0 to 7: 0–1 beginner, 1.5–2.5 improver, 3–4 intermediate, 4.5–5.5 advanced, 6–7 competition. Only you see these; games for a level or for women, men or mixed teams read them."),
      rated.length ? levels.map((select, i) => field(`${names[rated[i]] ?? rated[i]} level`, select)) : h("p", "Choose the sports you play above to rate yourself."),
      field("Gender", gender), h("button", {type: "submit"}, "Save my game"), saved);
    card.addEventListener("submit", async (e) => {
      e.preventDefault();
      try {
        const body = {gender: gender.value || null, levels: Object.fromEntries(levels.map((s) => [s.dataset.sport, s.value === "" ? null : Number(s.value)]))};
        await patch("/v1/me/player", body);
        showErrors(card, null, summary);
        replace(saved, "Saved your game.");
      } catch (e) { showErrors(card, e, summary); }
    });
  }).catch((e) => replace(card, h("h2", "Your game"), status(e.message)));
  return card;
}
