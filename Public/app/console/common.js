// What the console's screens share: a person's name that links to their account, an
// action's name in words, and the reason every staff action needs.
import {field, h} from "../dom.js";

export function personLink(person) {
  return person ? h("a", {href: `#/accounts/${person.id}`}, person.name) : "—";
}

const ACTIONS = {
  staff_granted: "Role given", staff_revoked: "Role taken", report_dismissed: "Reports dismissed", message_removed: "Message removed",
  event_removed: "Event removed", group_removed: "Group closed", photo_removed: "Photo taken down", registration_blocked: "Registrations blocked", registration_unblocked: "Registrations let in", user_removed: "Removed", user_warned: "Warned", user_limited: "Limited", user_suspended: "Suspended",
  user_lifted: "Limit or suspension lifted", appeal_filed: "Appeal filed", appeal_upheld: "Appeal upheld", appeal_reversed: "Appeal reversed",
};

export function actionName(action) { return ACTIONS[action] ?? action; }
export const auditActions = Object.keys(ACTIONS);

/** The reason field: required, at most 1,000 bytes. */
export function reasonField(label = "Reason (kept in the audit log and told to the person)") {
  const reason = h("textarea", {name: "reason", rows: "2", maxlength: "1000", required: true});
  return {reason, element: field(label, reason)};
}

/** "in 3 h" or "5 h overdue" against a due time. */
export function due(iso) {
  const hours = Math.round((Date.parse(iso) - Date.now()) / 3_600_000);
  return hours >= 0 ? `due in ${hours} h` : `${-hours} h overdue`;
}
