// The audit log: every staff action, newest first, filtered by action or target.
import {get, query} from "../api.js";
import {field, h, option, replace, status, when} from "../dom.js";
import {actionName, auditActions} from "./common.js";

export function auditView() {
  const action = h("select", {name: "action"}, option("", "Every action"), auditActions.map((a) => option(a, actionName(a))));
  const target = h("input", {name: "target_id", maxlength: "64", autocomplete: "off"});
  const rows = h("tbody");
  const state = status("Loading…");
  const form = h("form", {class: "filters", role: "search"}, field("Action", action), field("Target id", target), h("button", {type: "submit"}, "Filter"));

  async function load() {
    try {
      const page = await get(`/v1/staff/audit${query({action: action.value, target_id: target.value.trim(), limit: 200})}`);
      replace(rows, page.items.map((e) => h("tr", {},
        h("td", when(e.at)), h("td", e.actor), h("td", actionName(e.action)),
        h("td", `${e.target_type} `, e.target_type === "user" ? h("a", {href: `#/accounts/${e.target_id}`}, e.target_id.slice(0, 8)) : e.target_id.slice(0, 8)),
        h("td", e.reason))));
      replace(state, page.items.length ? `${page.items.length} rows` : "No rows.");
    } catch (e) { replace(state, e.message); }
  }
  form.addEventListener("submit", (e) => { e.preventDefault(); load(); });
  load();
  return {title: "Audit log", element: h("section", h("h1", "Audit log"), form, state,
    h("div", {class: "table-scroll"}, h("table", {class: "audit"}, h("caption", {class: "visually-hidden"}, "Staff actions, newest first"),
      h("thead", h("tr", ["When", "Who", "What", "Target", "Why"].map((c) => h("th", {scope: "col"}, c)))), rows)))};
}
