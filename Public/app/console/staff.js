// The staff (admins): who is moderator or admin, and giving or taking a role.
import {get, api} from "../api.js";
import {field, formError, h, option, replace, showErrors, status} from "../dom.js";
import {reasonField} from "./common.js";

export function staffView() {
  const list = h("ul", {class: "staff"});
  const state = status("Loading…");
  const email = h("input", {name: "email", type: "email", autocomplete: "off", maxlength: "254", required: true});
  const role = h("select", {name: "role"}, option("moderator", "Moderator"), option("admin", "Admin"), option("", "No role"));
  const {reason, element: reasonElement} = reasonField("Reason (kept in the audit log)");
  const summary = formError();
  const form = h("form", {class: "card", novalidate: true}, h("h2", "Give or take a role"), summary, field("Email", email), field("Role", role), reasonElement,
    h("button", {type: "submit", class: "primary"}, "Save"));
  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    try {
      await api("PUT", "/v1/staff/members", {email: email.value, role: role.value || null, reason: reason.value});
      showErrors(form, null, summary);
      replace(state, "Saved.");
      load();
    } catch (e) { showErrors(form, e, summary); }
  });

  async function load() {
    try {
      const page = await get("/v1/staff/members");
      replace(list, page.items.map((m) => h("li", h("a", {href: `#/accounts/${m.id}`}, m.name), ` · ${m.email} · ${m.role}`)));
      replace(state, "");
    } catch (error) {
      replace(state, error.code === "admins_only" ? "Only admins see and manage the staff." : error.message);
      form.hidden = error.code === "admins_only";
    }
  }
  load();
  return {title: "Staff", element: h("section", h("h1", "Staff"), state, list, form)};
}
