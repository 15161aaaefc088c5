// Events nearby: a list and a map of the same place, with filters. The place is the
// browser's location, the profile's, or one picked on the map.
import {get, me, query, sportCatalogue} from "../api.js";
import {btn, distance, field, h, option, replace, status, when} from "../dom.js";
import {SlippyMap} from "../map.js";

const PLACE = "sportlook.place";

export function eventCard(event) {
  const spots = event.capacity === null ? "open" : event.spots_left > 0 ? `${event.spots_left} left` : "full";
  return h("li", {class: "event-card"},
    h("a", {href: `#/events/${event.id}`},
      h("span", {class: "sport"}, event.sport.name),
      h("strong", {class: "title"}, event.title),
      h("span", {class: "meta"}, when(event.starts_at), event.distance_m !== undefined ? ` · ${distance(event.distance_m)}` : "", ` · ${event.going_count} going, ${spots}`),
      event.my_status ? h("span", {class: `pill ${event.my_status}`}, event.my_status === "going" ? "Going" : `Waitlist #${event.my_position}`) : null));
}

export function nearbyView(settings) {
  const sport = h("select", {name: "sport"}, option("", "Any sport"));
  const radius = h("select", {name: "radius_km"}, [2, 5, 10, 25, 50].map((km) => option(km, `${km} km`, km === 10)));
  const period = h("select", {name: "when"}, option("", "Any time"), option("today", "Today"), option("week", "This week"));
  const level = h("select", {name: "level"}, option("", "Any level"),
    Array.from({length: 15}, (_, i) => option(String(i / 2), `Open to level ${i / 2}`)));
  const audience = h("select", {name: "audience"}, option("", "Anyone's games"),
    option("anyone", "Open to anyone"), option("women", "Women only"), option("men", "Men only"), option("mixed", "Mixed teams"));
  const free = h("input", {type: "checkbox", name: "free_places"});
  const locate = btn({}, "Use my location");
  const list = h("ul", {class: "events"});
  const listStatus = status("Finding events…");
  const more = btn({hidden: true}, "More");
  const tabs = {
    list: btn({role: "tab", id: "tab-list", "aria-selected": "true", "aria-controls": "nearby-list"}, "List"),
    map: btn({role: "tab", id: "tab-map", "aria-selected": "false", "aria-controls": "nearby-map", tabindex: "-1"}, "Map"),
  };
  let place = JSON.parse(sessionStorage.getItem(PLACE) ?? "null");
  let cursor = null;
  let generation = 0;
  const map = new SlippyMap({
    tileURL: settings.tileURL, attribution: settings.attribution, center: place ?? {lat: 48.8566, lon: 2.3522}, zoom: 13, label: "Events on the map",
    onMove: (bounds) => loadPins(bounds),
  });
  const listPanel = h("div", {id: "nearby-list", role: "tabpanel", "aria-labelledby": "tab-list"}, listStatus, list, more);
  const mapPanel = h("div", {id: "nearby-map", role: "tabpanel", "aria-labelledby": "tab-map", hidden: true}, map.element, h("p", {class: "hint"}, "Drag the map to look elsewhere; choose a pin to open its event."));
  const showTab = (name) => {
    for (const [key, tab] of Object.entries(tabs)) {
      tab.setAttribute("aria-selected", String(key === name));
      tab.tabIndex = key === name ? 0 : -1;
    }
    listPanel.hidden = name !== "list";
    mapPanel.hidden = name !== "map";
    if (name === "map") { map.render(); loadPins(map.bounds()); }
  };
  tabs.list.addEventListener("click", () => showTab("list"));
  tabs.map.addEventListener("click", () => showTab("map"));
  const tablist = h("div", {role: "tablist", "aria-label": "Show events as"}, tabs.list, tabs.map);
  tablist.addEventListener("keydown", (e) => {
    if (e.key !== "ArrowLeft" && e.key !== "ArrowRight") return;
    const next = tabs.list.getAttribute("aria-selected") === "true" ? "map" : "list";
    showTab(next);
    tabs[next].focus();
  });

  const filters = () => {
    const now = new Date();
    const end = period.value === "today" ? new Date(now.getFullYear(), now.getMonth(), now.getDate() + 1) : period.value === "week" ? new Date(now.getTime() + 7 * 86_400_000) : null;
    return {sport: sport.value, starts_before: end?.toISOString(), level: level.value, audience: audience.value, free_places: free.checked ? "true" : undefined};
  };

  async function load(append = false) {
    if (!place) { replace(listStatus, "Choose a place: use your location, or set one on the map."); return; }
    const mine = ++generation;
    if (!append) { cursor = null; replace(listStatus, "Finding events…"); }
    try {
      const page = await get(`/v1/events/nearby${query({lat: place.lat.toFixed(5), lon: place.lon.toFixed(5), radius_km: radius.value, ...filters(), cursor: append ? cursor : undefined})}`);
      if (mine !== generation) return;
      if (!append) list.replaceChildren();
      list.append(...page.items.map(eventCard));
      cursor = page.next_cursor;
      more.hidden = !cursor;
      const filtered = level.value || audience.value || free.checked || sport.value || period.value;
      replace(listStatus, list.children.length ? `${list.children.length} event${list.children.length === 1 ? "" : "s"} within ${radius.value} km`
        : filtered ? `No events within ${radius.value} km match — try fewer filters.` : `No events within ${radius.value} km yet — create one!`);
    } catch (error) {
      if (mine === generation) replace(listStatus, error.message);
    }
  }

  async function loadPins(bounds) {
    if (mapPanel.hidden) return;
    try {
      const page = await get(`/v1/events/in-box${query({...bounds, ...filters(), limit: 100})}`);
      map.setPins(page.items.map((event) => ({id: event.id, lat: event.location.lat, lon: event.location.lon, text: event.sport.name.slice(0, 1),
        label: `${event.title}, ${event.sport.name}, ${when(event.starts_at)}`, onclick: () => { location.hash = `#/events/${event.id}`; }})));
    } catch { /* the list shows errors */ }
  }

  const setPlace = (next) => {
    place = next;
    sessionStorage.setItem(PLACE, JSON.stringify(place));
    map.setCenter(place);
    load();
  };
  locate.addEventListener("click", () => {
    replace(listStatus, "Asking for your location…");
    navigator.geolocation.getCurrentPosition((p) => setPlace({lat: p.coords.latitude, lon: p.coords.longitude}),
      () => replace(listStatus, "Your location is not available; set a place on the map."), {timeout: 10_000});
  });
  const searchHere = btn({}, "Search this area");
  searchHere.addEventListener("click", () => { setPlace({...map.center}); showTab("list"); });
  mapPanel.append(searchHere);
  for (const control of [sport, radius, period, level, audience, free]) control.addEventListener("change", () => { load(); loadPins(map.bounds()); });
  more.addEventListener("click", () => { if (cursor) load(true); });

  sportCatalogue().then((sports) => sport.append(...sports.map((s) => option(s.slug, s.name)))).catch(() => {});
  if (!place) me().then((user) => { if (user.location && !place) setPlace(user.location); else load(); }).catch(() => load());
  else load();

  return {element: h("section", {class: "nearby"},
    h("h1", "Events nearby"),
    h("form", {class: "filters", onsubmit: (e) => e.preventDefault()}, field("Sport", sport), field("Within", radius), field("When", period),
      field("Level", level), field("Who plays", audience), h("label", {class: "check"}, free, " Has free places"), locate),
    tablist, listPanel, mapPanel)};
}
