// The reports queue: open reports grouped by what they report, oldest first, each with
// its context, and the decisions a moderator takes on it.
import {get, post} from "../api.js";
import {btn, formError, h, replace, showErrors, status, when} from "../dom.js";
import {due, personLink, reasonField} from "./common.js";

const KIND = {message: "Message", event: "Event", group: "Group", photo: "Photo", user: "Person"};
const SHOWN_ON = {profile: "the profile photo of its owner", event: "an event's cover", group: "a group's cover", message: "an image in a chat message"};

export function queueView() {
  const list = h("div", {class: "queue"});
  const state = status("Loading…");

  function context(group) {
    const c = group.context;
    if (c.kind === "message") {
      const lines = [...c.around, c.message].sort((a, b) => a.seq - b.seq);
      return h("ol", {class: "messages context", "aria-label": "The message among those around it"}, lines.map((m) =>
        h("li", {class: m.seq === c.message.seq ? "reported" : ""},
          h("span", {class: "from"}, m.sender.name), " ",
          h("span", {class: "body"}, m.deleted_at ? "Message deleted" : m.body),
          m.seq === c.message.seq ? h("span", {class: "pill"}, "Reported") : null)),
        c.as_reported && c.message.deleted_at ? h("li", h("span", {class: "meta"}, "As reported: "), h("span", {class: "body"}, c.as_reported.body)) : null);
    }
    if (c.kind === "event") {
      return h("p", h("strong", c.event.title), ` · ${when(c.event.starts_at)} · organised by `, personLink(c.event.organiser),
        c.event.status === "cancelled" ? h("span", {class: "pill"}, " Cancelled") : null);
    }
    if (c.kind === "group") {
      return h("p", h("strong", c.group.name), ` · ${c.group.member_count} member${c.group.member_count === 1 ? "" : "s"} · owned by `, personLink(c.group.owner));
    }
    if (c.kind === "photo") {
      const urls = Object.values(c.photo.urls);
      return h("figure", {class: "photo"},
        h("img", {src: urls[urls.length - 1], alt: "The reported photo", width: 160, loading: "lazy"}),
        h("figcaption", `Shown as ${SHOWN_ON[c.photo.shown_on]} · uploaded by `, personLink(c.photo.owner)));
    }
    if (c.kind === "user") {
      const u = c.user;
      return h("p", personLink(u), ` · joined ${when(u.created_at)} · reported ${u.reports_received} times`,
        u.limited ? h("span", {class: "pill"}, " Limited") : null, u.suspended_at ? h("span", {class: "pill"}, " Suspended") : null);
    }
    return h("p", "It is gone.");
  }

  function decision(group) {
    const {reason, element: reasonElement} = reasonField();
    const days = h("input", {name: "days", type: "number", min: "1", max: "3650", inputmode: "numeric"});
    const summary = formError();
    const form = h("form", {class: "decision", novalidate: true}, summary, reasonElement);
    const decide = (action) => async () => {
      const body = {target_type: group.target_type, target_id: group.target_id, action, reason: reason.value};
      if (action === "suspend" && days.value) body.days = Number(days.value);
      try {
        const done = await post("/v1/staff/reports/decisions", body);
        load(`Done: ${done.resolved} report${done.resolved === 1 ? "" : "s"} closed.`);
      } catch (e) { showErrors(form, e, summary); }
    };
    const about = `${KIND[group.target_type].toLowerCase()} reported`;
    const buttons = [["dismiss", "Dismiss"]];
    if (group.target_type !== "user") buttons.push(["remove", group.target_type === "group" ? "Close the group" : group.target_type === "photo" ? "Take the photo down" : `Remove the ${group.target_type}`]);
    if (group.subject) buttons.push(["warn", `Warn ${group.subject.name}`], ["limit", `Limit ${group.subject.name}`]);
    form.append(h("div", {class: "actions"}, buttons.map(([action, label]) =>
      btn({class: action === "dismiss" ? "" : "danger", "aria-label": `${label} (${about})`, onclick: decide(action)}, label))));
    if (group.subject) {
      form.append(h("div", {class: "suspend"}, h("label", {for: `days-${group.target_id}`}, "Days (empty: for good)"),
        Object.assign(days, {id: `days-${group.target_id}`}),
        btn({class: "danger", onclick: decide("suspend")}, `Suspend ${group.subject.name}`)));
    }
    return form;
  }

  const item = (group) => h("article", {class: "card report-group"},
    h("h2", `${KIND[group.target_type]}`, group.subject ? [" by ", personLink(group.subject)] : null),
    h("p", {class: "meta"}, `${group.reports.length} report${group.reports.length === 1 ? "" : "s"} · oldest ${when(group.oldest_at)} · ${due(group.due_at)}`),
    context(group),
    h("ul", {class: "reports"}, group.reports.map((r) => h("li", personLink(r.reporter), `: ${r.reason}`, r.details ? ` — “${r.details}”` : ""))),
    decision(group));

  /** Reads the queue again; `said`: what was just done. */
  async function load(said = "") {
    try {
      const page = await get("/v1/staff/reports?limit=50");
      replace(list, page.items.map(item));
      const count = page.items.length ? `${page.items.length} waiting.` : "No open reports.";
      replace(state, said ? `${said} ${count}` : count);
    } catch (e) { replace(state, e.message); }
  }
  load();
  return {title: "Reports", element: h("section", h("h1", "Reports"), state, list)};
}
