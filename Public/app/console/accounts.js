// Finding an account by id, email or a part of the name.
import {get, query} from "../api.js";
import {field, h, replace, status} from "../dom.js";

export function accountsView() {
  const q = h("input", {name: "q", type: "search", minlength: "2", maxlength: "320", autocomplete: "off", required: true});
  const list = h("ul", {class: "accounts"});
  const state = status("");
  const form = h("form", {class: "filters", role: "search"}, field("Id, email or name", q), h("button", {type: "submit", class: "primary"}, "Find"));
  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    try {
      const page = await get(`/v1/staff/accounts${query({q: q.value.trim()})}`);
      replace(list, page.items.map((a) => h("li", h("a", {href: `#/accounts/${a.id}`}, a.name), ` · ${a.email || "deleted"}`,
        a.limited ? h("span", {class: "pill"}, " Limited") : null, a.suspended_at ? h("span", {class: "pill"}, " Suspended") : null)));
      replace(state, page.items.length ? `${page.items.length} found.` : "Nobody found.");
    } catch (e) { replace(state, e.message); }
  });
  return {title: "Accounts", element: h("section", h("h1", "Accounts"), form, state, list)};
}
