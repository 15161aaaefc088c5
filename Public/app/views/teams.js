// Teams for the people going; the organiser splits them (by level or at random) until the start.
import {api, del, get} from "../api.js";
import {formError, h, replace, showErrors, status} from "../dom.js";

export function teamsPanel(id, organiser, started) {
  const body = h("div", {}, status("Loading…"));
  const path = `/v1/events/${id}/teams`;
  const load = () => get(path).then(show, (e) => replace(body, status(e.message)));
  function show(t) {
    const plan = t.plan, out = plan?.published_at;
    replace(body, out ? h("div", {class: "teams"}, t.teams.map((team) => h("div", {"data-testid": "team"},
      h("h3", {}, `Team ${team.number}`, team.average_level === null ? "" : ` · level ${team.average_level}`),
      h("ul", {}, team.players.map((p) => h("li", {}, p.name, p.level === null ? "" : ` (${p.level})`, p.fixed ? " · fixed" : ""))))))
      : h("p", {}, plan?.publish_minutes != null ? `Teams come out ${plan.publish_minutes} minutes before the start.` : "No teams yet."),
    organiser && !started ? form(plan) : null);
  }
  function form(plan) {
    const count = h("select", {}, [2, 3, 4].map((n) => h("option", {value: n, selected: (plan?.count ?? 2) === n}, `${n} teams`)));
    const method = h("select", {}, h("option", {value: "balanced"}, "by level"), h("option", {value: "random", selected: plan?.method === "random"}, "at random"));
    const error = formError();
    const send = (publish) => async (event) => {
      event.preventDefault();
      try { show(await api("PUT", path, {count: +count.value, method: method.value, publish, publish_minutes: publish ? null : 60})); } catch (e) { showErrors(f, e, error); }
    };
    const f = h("form", {class: "actions", onsubmit: send(true)}, h("label", {}, "Split into ", count), h("label", {}, "chosen ", method),
      h("button", {class: "primary"}, plan?.published_at ? "Split again" : "Publish teams"),
      plan?.published_at ? null : h("button", {type: "button", onclick: send(false)}, "Publish an hour before"),
      plan ? h("button", {type: "button", onclick: () => del(path).then(load)}, "No teams") : null, error);
    return f;
  }
  load();
  return h("section", {class: "card", "aria-labelledby": "teams-heading"}, h("h2", {id: "teams-heading"}, "Teams"), body);
}
