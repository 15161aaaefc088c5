// Create or edit an event: the place picked on the map, a cover photo uploaded.
import {api, get, me, patch, post, sportCatalogue} from "../api.js";
import {field, fieldError, formError, h, later, option, replace, showErrors, status} from "../dom.js";
import {SlippyMap} from "../map.js";

/** "2026-07-12T18:30" for a datetime-local input, in local time. */
function localInput(date) {
  const pad = (n) => String(n).padStart(2, "0");
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}T${pad(date.getHours())}:${pad(date.getMinutes())}`;
}

export function composeView(settings, id, groupID) {
  const section = h("section", {class: "compose"}, status("Loading…"));
  (async () => {
    let event = null;
    try {
      if (id) event = await get(`/v1/events/${id}`);
      var group = groupID ? await get(`/v1/groups/${groupID}`) : null;
      var user = await me();
      var sports = await sportCatalogue();
    } catch (error) {
      replace(section, h("h1", id ? "Edit event" : "New event"), status(error.message));
      return;
    }
    const tomorrow = new Date(Date.now() + 86_400_000);
    tomorrow.setMinutes(0, 0, 0);
    const title = h("input", {name: "title", required: true, maxlength: "120", value: event?.title ?? ""});
    const sport = h("select", {name: "sport", required: true}, sports.map((s) => option(s.slug, s.name, (event?.sport.slug ?? user.sports?.[0]) === s.slug)));
    const starts = h("input", {name: "starts_at", type: "datetime-local", required: true, value: localInput(event ? new Date(event.starts_at) : tomorrow)});
    const hours = h("input", {name: "ends_at", type: "number", min: "0.5", max: "168", step: "0.5", value: event ? String((new Date(event.ends_at) - new Date(event.starts_at)) / 3_600_000) : "2"});
    const capacity = h("input", {name: "capacity", type: "number", min: "1", max: "10000", value: event?.capacity ?? "", placeholder: "No limit"});
    const address = h("input", {name: "address", maxlength: "300", value: event?.address ?? ""});
    const description = h("textarea", {name: "description", maxlength: "4000", rows: "4"}, event?.description ?? "");
    const cover = h("input", {name: "cover_id", type: "file", accept: "image/jpeg,image/png"});
    // Players needed: too few going two hours before, and the game is called off.
    const needed = h("input", {name: "min_players", type: "number", min: "1", max: "10000", value: event?.min_players ?? "", placeholder: "Any number"});
    // Who the game is for: a level range (0 to 7 in half steps) and an audience.
    const levelSteps = Array.from({length: 15}, (_, i) => i / 2);
    const levelFrom = h("select", {name: "level_min"}, option("", "Any level"), ...levelSteps.map((v) => option(String(v), String(v), event?.level?.min === v)));
    const levelTo = h("select", {name: "level_max"}, option("", "Any level"), ...levelSteps.map((v) => option(String(v), String(v), event?.level?.max === v)));
    const audience = h("select", {name: "audience"}, ...[["anyone", "Anyone"], ["women", "Women"], ["men", "Men"], ["mixed", "Mixed teams"]]
      .map(([v, label]) => option(v, label, (event?.audience ?? "anyone") === v)));
    // Who may join: anyone, or players whose last games show few no-shows.
    const rules = {"": null, "1/10": {last_games: 10, max_no_shows: 1}, "0/5": {last_games: 5, max_no_shows: 0}};
    const current = event?.min_record ? `${event.min_record.max_no_shows}/${event.min_record.last_games}` : "";
    const reliable = h("select", {name: "min_record"},
      option("", "Anyone", current === ""),
      option("1/10", "At most 1 no-show in their last 10 games", current === "1/10"),
      option("0/5", "No no-shows in their last 5 games", current === "0/5"),
      current && !(current in rules) ? option(current, `At most ${event.min_record.max_no_shows} no-shows in their last ${event.min_record.last_games} games`, true) : null);
    // After this, nobody joins or says maybe (409 answers_closed).
    const deadline = h("input", {name: "answer_deadline", type: "datetime-local", value: event?.answer_deadline ? localInput(new Date(event.answer_deadline)) : ""});
    let place = event?.location ?? user.location ?? JSON.parse(sessionStorage.getItem("sportlook.place") ?? "null");
    const where = h("p", {class: "picked", "data-field-for": "location", role: "status"}, place ? "Place set: drag the map and choose another spot to move it." : "Choose the place on the map.");
    const map = new SlippyMap({tileURL: settings.tileURL, attribution: settings.attribution, center: place ?? {lat: 48.8566, lon: 2.3522}, zoom: 14, label: "Place of the event",
      onPick: (p) => { place = p; replace(where, `Place set at ${p.lat.toFixed(4)}, ${p.lon.toFixed(4)}.`); }});
    if (place) map.setMarker(place);
    const locationError = fieldError("location");
    const summary = formError();
    const submit = h("button", {type: "submit", class: "primary"}, event ? "Save" : "Create event");
    // A group's game: its members alone see it unless opened to everyone.
    const membersOnly = h("input", {name: "members_only", type: "checkbox", checked: true});
    const forGroup = group ? h("fieldset", h("legend", `For ${group.name}`),
      h("label", {class: "check"}, membersOnly, "Members only: nobody outside the group sees it")) : null;
    // A new event may repeat every week: a series.
    const dayNames = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"];
    const dayCodes = ["SU", "MO", "TU", "WE", "TH", "FR", "SA"];
    const weekly = h("input", {name: "weekly", type: "checkbox"});
    const dayBoxes = dayNames.map((name, i) => h("label", {class: "check"}, h("input", {type: "checkbox", name: "days", value: dayCodes[i]}), name));
    const until = h("input", {name: "until", type: "date"});
    const repeatDetails = h("div", {hidden: true}, h("fieldset", h("legend", "On"), dayBoxes), field("Until (optional)", until));
    weekly.addEventListener("change", () => {
      repeatDetails.hidden = !weekly.checked;
      const day = new Date(starts.value).getDay();
      if (weekly.checked && !Number.isNaN(day) && !dayBoxes.some((l) => l.querySelector("input").checked)) dayBoxes[day].querySelector("input").checked = true;
    });
    // A competitive game's score moves levels.
    const competitive = h("input", {name: "competitive", type: "checkbox", checked: event?.competitive});
    const repeat = event ? null : h("fieldset", h("legend", "Repeat"), h("label", {class: "check"}, weekly, "Every week"), repeatDetails);
    const form = h("form", {class: "card", novalidate: true},
      h("h1", event ? "Edit event" : group ? `New game for ${group.name}` : "New event"), summary, forGroup,
      field("Title", title), field("Sport", sport), field("Starts", starts), field("Hours", hours),
      field("Places (besides you)", capacity), field("Address", address), field("Description", description),
      h("fieldset", h("legend", "Place"), map.element, where, locationError),
      field("Cover photo", cover), field("Answers close (optional)", deadline), field("Who may join", reliable), field("Players needed (besides you)", needed),
      h("fieldset", h("legend", "Level (0 to 7)"), field("From", levelFrom), field("To", levelTo)), field("For", audience),
      h("label", {class: "check"}, competitive, "Competitive: the score moves levels"), later("money", (m) => m.priceFields(event)), repeat, submit);
    form.addEventListener("submit", async (e) => {
      e.preventDefault();
      submit.disabled = true;
      try {
        const start = new Date(starts.value);
        const body = {
          title: title.value, sport: sport.value, address: address.value || null, description: description.value || null,
          capacity: capacity.value ? Number(capacity.value) : null,
        };
        if (!Number.isNaN(start.getTime())) {
          body.starts_at = start.toISOString();
          body.ends_at = new Date(start.getTime() + Number(hours.value || 2) * 3_600_000).toISOString();
        } else body.starts_at = starts.value;
        if (deadline.value) {
          const closes = new Date(deadline.value);
          body.answer_deadline = Number.isNaN(closes.getTime()) ? deadline.value : closes.toISOString();
        } else if (event?.answer_deadline) body.answer_deadline = null;
        if (levelFrom.value || levelTo.value) body.level = {min: Number(levelFrom.value || 0), max: Number(levelTo.value || 7)};
        else if (event?.level) body.level = null;
        if (audience.value !== (event?.audience ?? "anyone")) body.audience = audience.value;
        if (competitive.checked !== (event?.competitive ?? false)) body.competitive = competitive.checked;
        const price = form.querySelector("fieldset.price")?.price();
        if (price !== undefined && JSON.stringify(price) !== JSON.stringify(event?.price ?? null)) body.price = price;
        if (needed.value) body.min_players = Number(needed.value);
        else if (event?.min_players) body.min_players = null;
        if (reliable.value !== current) {
          const [most, last] = reliable.value.split("/").map(Number);
          body.min_record = reliable.value ? {last_games: last, max_no_shows: most} : null;
        }
        if (place) body.location = {lat: Number(place.lat.toFixed(6)), lon: Number(place.lon.toFixed(6))};
        // Reminders use the organiser's zone.
        if (!event) body.time_zone = Intl.DateTimeFormat().resolvedOptions().timeZone || "UTC";
        if (group) { body.group_id = group.id; body.members_only = membersOnly.checked; }
        if (cover.files[0]) {
          const upload = new FormData();
          upload.append("file", cover.files[0]);
          body.cover_id = (await api("POST", "/v1/media?use=cover", upload)).id;
        }
        if (!event && weekly.checked) {
          // The series: its local date, time and days; the first of its games opens.
          const [date, time] = starts.value.split("T");
          const days = dayBoxes.map((l) => l.querySelector("input")).filter((i) => i.checked).map((i) => i.value);
          const series = await post("/v1/series", {
            title: body.title, sport: body.sport, location: body.location, address: body.address || undefined, description: body.description || undefined,
            capacity: body.capacity ?? undefined, time_zone: body.time_zone, first_date: date, start_time: time,
            duration_minutes: Math.round(Number(hours.value || 2) * 60),
            rule: `FREQ=WEEKLY;BYDAY=${days.join(",")}` + (until.value ? `;UNTIL=${until.value.replaceAll("-", "")}` : ""),
            group_id: body.group_id, members_only: body.members_only, price: body.price ?? undefined,
          });
          location.hash = series.upcoming.length ? `#/events/${series.upcoming[0].event_id}` : "#/";
          return;
        }
        const saved = event ? await patch(`/v1/events/${event.id}`, body) : await post("/v1/events", body);
        location.hash = `#/events/${saved.id}`;
      } catch (error) {
        showErrors(form, error, summary);
      } finally {
        submit.disabled = false;
      }
    });
    replace(section, form);
    map.render();
  })();
  return {element: section};
}
