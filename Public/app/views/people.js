// People nearby who chose to be found: shared sports, rough distance; by sport and
// level; block and report.
import {get, me, post, query, sportCatalogue} from "../api.js";
import {btn, field, h, option, replace, status} from "../dom.js";
import {messagePerson} from "./chats.js";

export function peopleView() {
  const list = h("ul", {class: "people"});
  const note = status("Looking for people near you…");
  const sport = h("select", {name: "sport"}, option("", "Any sport"));
  const levels = Array.from({length: 15}, (_, i) => i / 2);
  const minLevel = h("select", {name: "min_level"}, option("", "Any"), levels.map((l) => option(String(l), String(l))));
  const maxLevel = h("select", {name: "max_level"}, option("", "Any"), levels.map((l) => option(String(l), String(l))));
  const filters = h("form", {class: "filters", onsubmit: (e) => e.preventDefault()},
    field("Sport", sport), field("Level from", minLevel), field("Level to", maxLevel));
  const section = h("section", {class: "people-view"}, h("h1", "People nearby"), filters, note, list);

  const person = (p) => {
    const feedback = status("");
    const block = async () => {
      if (!confirm(`Block ${p.name}? Neither of you will see the other.`)) return;
      try { await post(`/v1/users/${p.id}/block`); item.remove(); } catch (e) { replace(feedback, e.message); }
    };
    const report = async () => {
      try { await post("/v1/reports", {target_type: "user", target_id: p.id, reason: "inappropriate"}); replace(feedback, "Reported; a moderator will look."); } catch (e) { replace(feedback, e.message); }
    };
    const item = h("li", {class: "person"},
      p.image_urls ? h("img", {src: p.image_urls["128"] ?? p.image_url, alt: "", class: "avatar"}) : h("span", {class: "avatar", "aria-hidden": "true"}, p.name.slice(0, 1)),
      h("div", {},
        h("strong", p.name), h("span", {class: "meta"}, ` · about ${p.distance_km} km`),
        p.level !== undefined ? h("span", {class: "pill level"}, `Level ${p.level}`) : null,
        p.shared_sports.length ? h("p", {class: "meta"}, `Also plays ${p.shared_sports.join(", ")}`) : null,
        p.bio ? h("p", p.bio) : null,
        h("div", {class: "actions"},
          btn({class: "primary", onclick: () => messagePerson(p.id).catch((error) => replace(feedback, error.message))}, `Message ${p.name}`),
          btn({onclick: block}, `Block ${p.name}`), btn({onclick: report}, `Report ${p.name}`)),
        feedback));
    return item;
  };

  let generation = 0;
  const load = () => me().then(async (user) => {
    if (!user.location) { replace(note, "Set your location on your profile to see people near you."); return; }
    const byLevel = minLevel.value !== "" || maxLevel.value !== "";
    if (byLevel && !sport.value) { replace(note, "Choose a sport: a level is a level in one sport."); replace(list, []); return; }
    const mine = ++generation;
    const page = await get(`/v1/users/nearby${query({lat: user.location.lat, lon: user.location.lon, radius_km: 25, limit: 100,
      sport: sport.value, min_level: minLevel.value, max_level: maxLevel.value})}`);
    if (mine !== generation) return;
    replace(list, page.items.map(person));
    replace(note, page.items.length ? "" : byLevel || sport.value ? "Nobody nearby matches." : "Nobody nearby is discoverable yet.");
  }).catch((e) => replace(note, e.message));
  for (const control of [sport, minLevel, maxLevel]) control.addEventListener("change", load);
  sportCatalogue().then((sports) => sport.append(...sports.map((s) => option(s.slug, s.name)))).catch(() => {});
  load();
  return {element: section};
}
