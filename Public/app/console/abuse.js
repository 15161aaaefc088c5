// The abuse panel: this instance's refusals by limit, registrations and failed sign-ins per
// network over the last hour, and (admins) blocking an address range or an email domain
// from registering.
import {get, post} from "../api.js";
import {btn, field, formError, h, replace, showErrors, status, when} from "../dom.js";
import {reasonField} from "./common.js";

const KINDS = [["network", "Address range"], ["email_domain", "Email domain"]];

function table(caption, columns, rows, empty) {
  if (!rows.length) return h("p", {class: "meta"}, empty);
  return h("div", {class: "table-scroll"}, h("table", {class: "audit"}, h("caption", caption),
    h("thead", h("tr", columns.map((c) => h("th", {scope: "col"}, c)))),
    h("tbody", rows.map((cells) => h("tr", cells.map((c) => h("td", c)))))));
}

export function abuseView() {
  const state = status("Loading…");
  const figures = h("div");
  const blocks = h("div");
  const kind = h("select", {name: "kind"}, KINDS.map(([value, label]) => h("option", {value}, label)));
  const value = h("input", {name: "value", maxlength: "253", autocomplete: "off", placeholder: "203.0.113.0/24 or spam.example"});
  const {reason, element: reasonElement} = reasonField("Reason (kept in the audit log)");
  const summary = formError();
  const form = h("form", {class: "card decision", novalidate: true}, h("h2", "Block registrations"), summary,
    field("Kind", kind), field("Range or domain", value), reasonElement,
    h("div", {class: "actions"}, btn({class: "danger", onclick: async () => {
      try {
        const made = await post("/v1/staff/abuse/blocks", {kind: kind.value, value: value.value.trim(), reason: reason.value});
        showErrors(form, null, summary);
        value.value = "";
        reason.value = "";
        load(made.action ? `Blocked ${made.block.value}.` : `${made.block.value} was blocked already.`);
      } catch (e) { showErrors(form, e, summary); }
    }}, "Block")));

  const {reason: liftReason, element: liftReasonElement} = reasonField("Reason to lift a block (kept in the audit log)");
  const liftSummary = formError();
  const lifting = h("form", {class: "decision", novalidate: true}, liftSummary, liftReasonElement);
  const lift = (block) => async () => {
    try {
      await post(`/v1/staff/abuse/blocks/${block.id}/lift`, {reason: liftReason.value});
      liftReason.value = "";
      load(`Lifted the block on ${block.value}.`);
    } catch (e) { showErrors(lifting, e, liftSummary); }
  };

  async function load(said = "") {
    try {
      const panel = await get("/v1/staff/abuse");
      replace(figures,
        table("Refusals by limit (this server, last hour)", ["Code", "Refusals"], panel.refusals.map((r) => [r.code, String(r.count)]), "No refusals in the last hour."),
        table("Registrations and failed sign-ins per network (last hour)", ["Network", "Registrations", "Failed sign-ins"],
          panel.networks.map((n) => [n.network, String(n.registrations), String(n.failed_sign_ins)]), "No registrations or failed sign-ins in the last hour."));
      replace(blocks, h("h2", "Blocked from registering"), panel.blocks.length
        ? [h("ul", {class: "blocks"}, panel.blocks.map((b) => h("li",
          h("strong", b.value), ` · ${b.kind === "network" ? "address range" : "email domain"} · ${when(b.created_at)}${b.created_by ? ` by ${b.created_by.name}` : ""} · ${b.reason} `,
          btn({class: "small", "aria-label": `Lift the block on ${b.value}`, onclick: lift(b)}, "Lift")))), lifting]
        : h("p", {class: "meta"}, "Nothing is blocked."));
      replace(state, said || `Since ${when(panel.since)}.`);
    } catch (error) { replace(state, error.message); }
  }
  load();
  return {title: "Abuse", element: h("section", h("h1", "Abuse"), state, figures, blocks, form)};
}
