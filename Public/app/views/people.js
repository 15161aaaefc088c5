// People nearby who chose to be found: shared sports, rough distance; block and report.
import {get, me, post, query} from "../api.js";
import {h, replace, status} from "../dom.js";
import {messagePerson} from "./chats.js";

export function peopleView() {
  const list = h("ul", {class: "people"});
  const note = status("Looking for people near you…");
  const section = h("section", {class: "people-view"}, h("h1", {}, "People nearby"), note, list);

  const person = (p) => {
    const feedback = status("");
    const block = async () => {
      if (!confirm(`Block ${p.name}? Neither of you will see the other.`)) return;
      try { await post(`/v1/users/${p.id}/block`); item.remove(); } catch (error) { replace(feedback, error.message); }
    };
    const report = async () => {
      try { await post("/v1/reports", {target_type: "user", target_id: p.id, reason: "inappropriate"}); replace(feedback, "Reported; a moderator will look."); } catch (error) { replace(feedback, error.message); }
    };
    const item = h("li", {class: "person"},
      p.image_urls ? h("img", {src: p.image_urls["128"] ?? p.image_url, alt: "", class: "avatar"}) : h("span", {class: "avatar", "aria-hidden": "true"}, p.name.slice(0, 1)),
      h("div", {},
        h("strong", {}, p.name), h("span", {class: "meta"}, ` · about ${p.distance_km} km`),
        p.shared_sports.length ? h("p", {class: "meta"}, `Also plays ${p.shared_sports.join(", ")}`) : null,
        p.bio ? h("p", {}, p.bio) : null,
        h("div", {class: "actions"},
          h("button", {type: "button", class: "primary", onclick: () => messagePerson(p.id).catch((error) => replace(feedback, error.message))}, `Message ${p.name}`),
          h("button", {type: "button", onclick: block}, `Block ${p.name}`), h("button", {type: "button", onclick: report}, `Report ${p.name}`)),
        feedback));
    return item;
  };

  me().then(async (user) => {
    if (!user.location) { replace(note, "Set your location on your profile to see people near you."); return; }
    const page = await get(`/v1/users/nearby${query({lat: user.location.lat, lon: user.location.lon, radius_km: 25, limit: 100})}`);
    replace(list, page.items.map(person));
    replace(note, page.items.length ? "" : "Nobody nearby is discoverable yet.");
  }).catch((error) => replace(note, error.message));
  return {element: section};
}
