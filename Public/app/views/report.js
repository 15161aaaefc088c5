// Reporting something to the moderators: a person, an event, a message, a group or a photo, with a reason.
import {post} from "../api.js";
import {btn, h, replace} from "../dom.js";

const REASONS = [["spam", "Spam"], ["harassment", "Harassment"], ["inappropriate", "Inappropriate"], ["impersonation", "Pretends to be someone else"], ["safety", "A safety concern"], ["other", "Something else"]];

/** A "Report" control: a list of reasons, one press files the report. `about` names the thing for screen readers. */
export function reportControl(targetType, targetID, about) {
  const said = h("span", {class: "meta", role: "status"});
  const details = h("details", {class: "report"}, h("summary", {"aria-label": `Report ${about}`}, "Report"),
    h("span", {class: "reasons"}, REASONS.map(([reason, label]) =>
      btn({class: "small", "aria-label": `Report ${about}: ${label}`, onclick: async () => {
        details.open = false;
        try {
          await post("/v1/reports", {target_type: targetType, target_id: targetID, reason});
          replace(said, " Reported: a moderator will look.");
        } catch (error) { replace(said, ` ${error.message}`); }
      }}, label))));
  return h("span", {class: "report-control"}, details, said);
}
