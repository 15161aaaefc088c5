// Teams for the people going, split by the organiser until the start; then the score.
import {api, del, get, post} from "../api.js";
import {btn, formError, h, option, replace, showErrors, status, when} from "../dom.js";

export function teamsPanel(id, organiser, started) {
  const body = h("div", status("Loading…"));
  const path = `/v1/events/${id}/teams`;
  const load = () => get(path).then(show, (e) => replace(body, status(e.message)));
  function show(t) {
    const plan = t.plan, out = plan?.published_at;
    replace(body, out ? h("div", {class: "teams"}, t.teams.map((team) => h("div", {"data-testid": "team"},
      h("h3", `Team ${team.number}`),
      h("ul", team.players.map((p) => h("li", p.name, p.fixed ? " · fixed" : ""))))))
      : h("p", plan?.publish_minutes != null ? `Teams come out ${plan.publish_minutes} minutes before the start.` : "No teams yet."),
    organiser && !started ? form(plan) : null, out && started ? score(plan.count) : null);
  }
  function score(count) {
    const box = h("div", {"data-testid": "score"}), result = `/v1/events/${id}/result`;
    const fail = (e) => box.append(status(e.message));
    const fill = (r) => replace(box, h("p", `Score ${r.scores.join("–")}: `, {pending: `the other team confirms or disputes it by ${when(r.answer_by)}`,
      confirmed: "confirmed", disputed: "disputed, so it does not count", stood: "it stands"}[r.status], r.levels_moved ? " · levels moved" : ""),
    r.status === "pending" ? [btn({onclick: () => post(`${result}/confirm`).then(fill, fail)}, "Confirm"), btn({onclick: () => post(`${result}/dispute`).then(fill, fail)}, "Dispute")] : null);
    get(result).then(fill, (e) => {
      if (e.status !== 404) return fail(e);
      const goals = Array.from({length: count}, (_, i) => h("input", {type: "number", min: 0, max: 999, required: true, "aria-label": `Team ${i + 1} score`}));
      replace(box, h("form", {class: "actions", onsubmit: (ev) => { ev.preventDefault(); post(result, {scores: goals.map((g) => +g.value)}).then(fill, fail); }},
        goals, h("button", {class: "primary"}, "Enter the score")));
    });
    return box;
  }
  function form(plan) {
    const count = h("select", [2, 3, 4].map((n) => option(n, `${n} teams`, (plan?.count ?? 2) === n)));
    const method = h("select", option("balanced", "by level"), option("random", "at random", plan?.method === "random"));
    const error = formError();
    const send = (publish) => async (event) => {
      event.preventDefault();
      try { show(await api("PUT", path, {count: +count.value, method: method.value, publish, publish_minutes: publish ? null : 60})); } catch (e) { showErrors(f, e, error); }
    };
    const f = h("form", {class: "actions", onsubmit: send(true)}, h("label", "Split into ", count), h("label", "chosen ", method),
      h("button", {class: "primary"}, plan?.published_at ? "Split again" : "Publish teams"),
      plan?.published_at ? null : btn({onclick: send(false)}, "Publish an hour before"),
      plan ? btn({onclick: () => del(path).then(load)}, "No teams") : null, error);
    return f;
  }
  load();
  return h("section", {class: "card", "aria-labelledby": "teams-heading"}, h("h2", {id: "teams-heading"}, "Teams"), body);
}
