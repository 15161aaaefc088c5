// One account as staff see it: its standing, its report counts, its history in the audit
// log, and the actions on a person.
import {get, post, query} from "../api.js";
import {btn, formError, h, replace, showErrors, status, when} from "../dom.js";
import {actionName, reasonField} from "./common.js";

export function accountView(id) {
  const facts = h("div", {class: "card"});
  const history = h("ul", {class: "audit"});
  const state = status("Loading…");
  const {reason, element: reasonElement} = reasonField();
  const days = h("input", {name: "days", type: "number", min: "1", max: "3650", inputmode: "numeric"});
  const summary = formError();
  const form = h("form", {class: "card decision", novalidate: true}, h("h2", "Act"), summary, reasonElement);
  const act = (action) => async () => {
    const body = {action, reason: reason.value};
    if (action === "suspend" && days.value) body.days = Number(days.value);
    try {
      await post(`/v1/staff/accounts/${id}/actions`, body);
      showErrors(form, null, summary);
      reason.value = "";
      load(`Done: ${actionName({warn: "user_warned", limit: "user_limited", suspend: "user_suspended", lift: "user_lifted"}[action])}.`);
    } catch (e) { showErrors(form, e, summary); }
  };
  form.append(
    h("div", {class: "actions"},
      btn({onclick: act("warn")}, "Warn"),
      btn({class: "danger", onclick: act("limit")}, "Limit"),
      btn({onclick: act("lift")}, "Lift")),
    h("div", {class: "suspend"}, h("label", {for: "days"}, "Days (empty: for good)"), Object.assign(days, {id: "days"}),
      btn({class: "danger", onclick: act("suspend")}, "Suspend")),
    h("h3", "On the person's written request (admins)"),
    h("div", {class: "actions"},
      btn({onclick: request("export")}, "Export their data"),
      btn({class: "danger", onclick: request("erase")}, "Erase the account")));
  function request(what) {
    return async () => {
      if (what === "erase" && !confirm("Erase this account for good, as its owner asked?")) return;
      try {
        await post(`/v1/staff/accounts/${id}/${what}`, {reason: reason.value});
        showErrors(form, null, summary);
        reason.value = "";
        load(what === "erase" ? "Erased." : "Their export is being built; the link goes to them.");
      } catch (e) { showErrors(form, e, summary); }
    };
  }
  const heading = h("h1", "Account");

  /** Reads the account again; `said`: what was just done. */
  async function load(said = "") {
    try {
      const a = await get(`/v1/staff/accounts/${id}`);
      replace(heading, a.name);
      replace(facts,
        h("dl", {class: "facts"},
          h("dt", "Joined"), h("dd", when(a.created_at)),
          h("dt", "Standing"), h("dd", a.deleted ? "Deleted" : [a.limited ? "Limited" : null, a.suspended_at ? (a.suspended_until ? `Suspended until ${when(a.suspended_until)}` : "Suspended for good") : null].filter(Boolean).join(", ") || "In good standing"),
          h("dt", "Email"), h("dd", a.email || "—"),
          a.look_alike_scripts ? [h("dt", "Name mixes"), h("dd", `${a.look_alike_scripts} letters`)] : null,
          h("dt", "Games"), h("dd", `${a.games_organised} organised, ${a.games_joined} joined`),
          h("dt", "Groups"), h("dd", String(a.groups)),
          h("dt", "Signed in on"), h("dd", `${a.live_sessions} session${a.live_sessions === 1 ? "" : "s"}, ${a.devices} device${a.devices === 1 ? "" : "s"} for pushes`),
          h("dt", "Showing up"), h("dd", a.record?.games ? `${a.record.attended} of ${a.record.games} games attended, ${a.record.no_shows} no-show${a.record.no_shows === 1 ? "" : "s"}, ${a.record.late_cancellations} late cancellation${a.record.late_cancellations === 1 ? "" : "s"}` : "No game counted yet"),
          h("dt", "Signed in from"), h("dd", a.sign_in_networks?.length ? a.sign_in_networks.map((n) => `${n.network} (${when(n.last_used_at)})`).join(", ") : "—"),
          h("dt", "Reports about them"), h("dd", String(a.reports_received)),
          h("dt", "Reports they made"), h("dd", String(a.reports_made))));
      const log = await get(`/v1/staff/audit${query({target_id: id, limit: 50})}`);
      replace(history, log.items.map((e) => h("li", `${when(e.at)} · ${actionName(e.action)} by ${e.actor}: “${e.reason}”`)));
      replace(state, said);
    } catch (error) { replace(state, said ? `${said} ${error.message}` : error.message); }
  }
  load();
  return {title: "Account", element: h("section", heading, state, facts, form, h("h2", "History"), history)};
}
