// Appeals: each open one with the action appealed and the person; another member of
// staff than the one who acted upholds or reverses it.
import {get, post} from "../api.js";
import {btn, formError, h, replace, showErrors, status, when} from "../dom.js";
import {actionName, personLink, reasonField} from "./common.js";

export function appealsView() {
  const list = h("div", {class: "appeals"});
  const state = status("Loading…");

  const item = (appeal) => {
    const {reason, element: reasonElement} = reasonField("Reason (told to the person)");
    const summary = formError();
    const form = h("form", {class: "decision", novalidate: true}, summary, reasonElement);
    const decide = (decision) => async () => {
      try {
        await post(`/v1/staff/appeals/${appeal.id}/decision`, {decision, reason: reason.value});
        load(decision === "reverse" ? "Reversed." : "Upheld.");
      } catch (e) { showErrors(form, e, summary); }
    };
    form.append(h("div", {class: "actions"},
      btn({onclick: decide("uphold")}, "Uphold"),
      btn({class: "primary", onclick: decide("reverse")}, "Reverse")));
    return h("article", {class: "card appeal-case"},
      h("h2", personLink(appeal.person), " appeals: ", actionName(appeal.action.action)),
      h("p", {class: "meta"}, `Appealed ${when(appeal.created_at)} · the action by ${appeal.action.actor}, ${when(appeal.action.at)}: “${appeal.action.reason}”`),
      h("blockquote", appeal.statement),
      form);
  };

  /** Reads the appeals again; `said`: what was just done. */
  async function load(said = "") {
    try {
      const page = await get("/v1/staff/appeals?limit=50");
      replace(list, page.items.map(item));
      const count = page.items.length ? `${page.items.length} waiting.` : "No open appeals.";
      replace(state, said ? `${said} ${count}` : count);
    } catch (e) { replace(state, e.message); }
  }
  load();
  return {title: "Appeals", element: h("section", h("h1", "Appeals"), state, list)};
}
