// Building the page without ever parsing text as HTML: every string becomes a text
// node or an attribute value, so a title like <img src=x onerror=…> shows as typed.

/** h("button", {class: "primary", onclick: f}, "Join") → an element; h("li", "text") has no attributes. */
export function h(tag, attributes = {}, ...children) {
  if (typeof attributes !== "object" || attributes instanceof Node || Array.isArray(attributes)) {
    children.unshift(attributes);
    attributes = {};
  }
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes ?? {})) {
    if (value === undefined || value === null || value === false) continue;
    if (name.startsWith("on") && typeof value === "function") element.addEventListener(name.slice(2), value);
    else if (name === "dataset") Object.assign(element.dataset, value);
    else if (value === true) element.setAttribute(name, "");
    else element.setAttribute(name, String(value));
  }
  append(element, children);
  return element;
}

function append(element, children) {
  for (const child of children.flat(Infinity)) {
    if (child === undefined || child === null || child === false) continue;
    element.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
}

/** Replaces an element's content. */
export function replace(element, ...children) {
  element.replaceChildren();
  append(element, children);
  return element;
}

/** A labelled input; `field` names the API field whose error is shown under it. */
export function field(label, input, field = input.name) {
  const id = input.id || `f-${field}-${Math.random().toString(36).slice(2, 8)}`;
  input.id = id;
  const error = fieldError(field, id);
  input.setAttribute("aria-describedby", error.id);
  return h("div", {class: "field"}, h("label", {for: id}, label), input, error);
}

/** A button that submits nothing: btn({onclick: f}, "Remind everyone"). */
export const btn = (attributes, ...children) => h("button", {type: "button", ...attributes}, ...children);

/** option(value, label, selected) → an <option>. */
export const option = (value, label, selected) => h("option", {value, selected}, label);

/** The line a form's error is summed up in, announced when shown. */
export const formError = () => h("p", {class: "form-error", role: "alert", hidden: true});

/** Where the API's message for `field` is shown (by showErrors), for an input with id `id`. */
export const fieldError = (field, id = field) => h("p", {class: "field-error", id: `${id}-error`, "data-field": field, role: "alert", hidden: true});

/** Shows an API error: each field's message beside its input, the rest in `summary`. */
export function showErrors(form, error, summary) {
  for (const p of form.querySelectorAll(".field-error")) { p.hidden = true; p.textContent = ""; }
  for (const input of form.querySelectorAll("[aria-invalid]")) input.removeAttribute("aria-invalid");
  let placed = false;
  for (const [name, message] of Object.entries(error?.fields ?? {})) {
    const p = form.querySelector(`.field-error[data-field="${CSS.escape(name)}"]`);
    if (!p) continue;
    p.textContent = message;
    p.hidden = false;
    document.getElementById(p.id.replace(/-error$/, ""))?.setAttribute("aria-invalid", "true");
    placed = true;
  }
  if (summary) {
    summary.textContent = error ? (placed ? error.message : error.message || "Something went wrong.") : "";
    summary.hidden = !error;
  }
}

/** "Sat 12 Jul, 18:30" in the reader's language and time zone. */
export function when(iso) {
  return new Date(iso).toLocaleString(undefined, {weekday: "short", day: "numeric", month: "short", hour: "2-digit", minute: "2-digit"});
}

export function distance(metres) {
  return metres < 1000 ? `${Math.round(metres)} m` : `${(metres / 1000).toFixed(metres < 10000 ? 1 : 0)} km`;
}

/** A status line that screen readers announce. */
export function status(text) {
  return h("p", {class: "status", role: "status"}, text);
}

/** A part of a screen from `later/NAME.js`, fetched when first shown (not with the page): a slot that `make(module)` fills. */
export function later(name, make) {
  const slot = h("div", status("Loading…"));
  import(`./later/${name}.js`).then((m) => replace(slot, make(m)), (e) => replace(slot, status(e.message)));
  return slot;
}
