// Polls in a chat: options with live counts, voting, and the form that asks.
import {api} from "../api.js";
import {btn, field, formError, h, showErrors} from "../dom.js";

const when = (o) => o.label || new Date(o.starts_at).toLocaleString([], {weekday: "short", day: "numeric", month: "short", hour: "2-digit", minute: "2-digit"});

/** A poll's options: pressing one votes, or takes the vote back. */
export function pollView(m, user, change) {
  const p = m.poll;
  const open = !p.closed && Date.parse(p.closes_at) > Date.now() && !m.deleted;
  const vote = (i) => {
    const mine = p.my_votes.includes(i);
    const options = p.multiple ? (mine ? p.my_votes.filter((x) => x !== i) : [...p.my_votes, i]) : (mine ? [] : [i]);
    return change("PUT", `${m.seq}/poll/votes`, {options});
  };
  const most = Math.max(1, ...p.options.map((o) => o.count));
  return h("div", {class: "poll"},
    h("ul", {"aria-label": `Poll: ${m.body}`}, p.options.map((o, i) => h("li",
      btn({class: "option", "aria-label": `${when(o)}, ${o.count}`, "aria-pressed": String(p.my_votes.includes(i)), disabled: !open, onclick: () => vote(i)},
        h("span", when(o)), h("meter", {min: 0, max: most, value: o.count}), h("span", `${o.count}`)),
      !p.anonymous && o.user_ids.length && p.one_per_option ? h("span", {class: "meta"}, o.user_ids.includes(user.id) ? " you" : " taken") : null))),
    h("p", {class: "meta"}, `${p.voters_count} answered · ${open ? `closes ${new Date(p.closes_at).toLocaleString()}` : "closed"}`,
      open && m.sender.id === user.id ? btn({class: "link", onclick: () => change("POST", `${m.seq}/poll/close`)}, "Close poll") : null));
}

/** The form that sends a poll: a question, one option a line. */
export function pollForm(roomID, done) {
  const question = h("input", {name: "body", maxlength: "2000", required: true});
  const lines = h("textarea", {name: "poll.options", rows: "3", required: true});
  const box = (name, label) => h("label", h("input", {type: "checkbox", name}), ` ${label}`);
  const error = formError();
  const form = h("form", {class: "poll-form"}, field("Question", question), field("Options, one a line", lines),
    box("multiple", "Several choices"), box("anonymous", "Anonymous"), box("one_per_option", "Sign-up list (each option once)"),
    error, h("button", {type: "submit", class: "primary"}, "Ask"));
  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    const poll = {options: lines.value.split("\n").map((s) => s.trim()).filter(Boolean).map((label) => ({label}))};
    for (const name of ["multiple", "anonymous", "one_per_option"]) poll[name] = form.elements[name].checked;
    try {
      await api("POST", `/v1/rooms/${roomID}/messages`, {body: question.value.trim(), client_id: crypto.randomUUID(), poll});
      form.reset();
      done();
    } catch (err) { showErrors(form, err, error); }
  });
  return form;
}
