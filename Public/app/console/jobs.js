// The job queue (admins): counts by state and kind, the dead jobs, retrying or dropping them.
import {get, post} from "../api.js";
import {btn, field, formError, h, replace, showErrors, status, when} from "../dom.js";
import {reasonField} from "./common.js";

export function jobsView() {
  const counts = h("tbody");
  const dead = h("ul", {class: "dead-jobs"});
  const state = status("Loading…");
  const kind = h("input", {name: "kind", maxlength: "64", autocomplete: "off"});
  const {reason, element: reasonElement} = reasonField("Reason (kept in the audit log)");
  const summary = formError();
  const form = h("form", {class: "card decision", novalidate: true}, h("h2", "Dead jobs"), summary, field("Kind (empty: every kind)", kind), reasonElement);
  const settle = (verb) => async () => {
    try {
      const done = await post(`/v1/staff/jobs/${verb}`, {kind: kind.value.trim() || undefined, reason: reason.value});
      showErrors(form, null, summary);
      load(`${done.count} ${verb === "retry" ? "queued again" : "removed"}.`);
    } catch (e) { showErrors(form, e, summary); }
  };
  form.append(h("div", {class: "actions"}, btn({class: "primary", onclick: settle("retry")}, "Retry"),
    btn({class: "danger", onclick: settle("drop")}, "Drop")));

  async function load(said = "") {
    try {
      const overview = await get("/v1/staff/jobs");
      replace(counts, overview.counts.map((c) => h("tr", h("td", c.state), h("td", c.kind), h("td", String(c.count)))));
      replace(dead, overview.dead.map((j) => h("li", `${j.kind} · ${j.attempts} attempts · ${j.finished_at ? when(j.finished_at) : ""} · ${j.last_error ?? ""}`)));
      const oldest = overview.oldest_queued_at ? `Oldest queued: ${when(overview.oldest_queued_at)}.` : "Nothing queued.";
      replace(state, [said, oldest].filter(Boolean).join(" "));
    } catch (error) {
      replace(state, error.code === "admins_only" ? "Only admins see the job queue." : error.message);
      form.hidden = error.code === "admins_only";
    }
  }
  load();
  return {title: "Jobs", element: h("section", h("h1", "Jobs"), state,
    h("div", {class: "table-scroll"}, h("table", {class: "audit"}, h("caption", {class: "visually-hidden"}, "Jobs by state and kind"),
      h("thead", h("tr", ["State", "Kind", "Count"].map((c) => h("th", {scope: "col"}, c)))), counts)),
    dead, form)};
}
