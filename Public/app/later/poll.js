// Polls in a chat (a part loaded when first shown): options with live counts, voting, a
// closed time poll made a game, and the form that asks.
import {api, sportCatalogue} from "../api.js";
import {btn, field, formError, h, option, showErrors} from "../dom.js";

const when = (o) => o.label || new Date(o.starts_at).toLocaleString([], {weekday: "short", day: "numeric", month: "short", hour: "2-digit", minute: "2-digit"});

/** A poll's options: pressing one votes, or takes the vote back. `game` makes a closed
 * time poll a game: `{schedule(m, body), place, sport}`. */
export function pollView(m, user, change, game) {
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
      open && m.sender.id === user.id ? btn({class: "link", onclick: () => change("POST", `${m.seq}/poll/close`)}, "Close poll") : null),
    p.event_id ? h("p", h("a", {href: `#/events/${p.event_id}`}, "The game it became")) : null,
    p.series_id ? h("p", {class: "meta"}, "Made a weekly game") : null,
    p.kind === "time" && !open && !m.deleted && m.sender.id === user.id && !p.event_id && !p.series_id && game ? makeGame(m, p, game) : null);
}

/** Its author makes a closed time poll a game at one of its times (the most chosen
 * first); the people who chose that time are invited. */
function makeGame(m, p, {schedule, place, sport}) {
  const best = p.options.reduce((b, o, i) => (o.count > p.options[b].count ? i : b), 0);
  const slot = h("select", {name: "option"}, p.options.map((o, i) => option(String(i), `${when(o)} (${o.count})`, i === best)));
  const title = h("input", {name: "event.title", maxlength: "120", required: true, value: [...m.body].slice(0, 120).join("")});
  const sports = h("select", {name: "event.sport", required: true});
  sportCatalogue().then((list) => sports.replaceChildren(...list.map((s) => option(s.slug, s.name, s.slug === sport))), () => {});
  const error = formError();
  const form = h("form", {class: "poll-form"}, field("Time", slot), field("Title", title), field("Sport", sports), error,
    h("button", {type: "submit", class: "primary"}, "Make the game"));
  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    try {
      const made = await schedule(m, {option: Number(slot.value), event: {title: title.value.trim(), sport: sports.value, location: place}});
      location.hash = `#/events/${made.event_id}`;
    } catch (err) { showErrors(form, err, error); }
  });
  return h("details", {class: "make-game"}, h("summary", "Make it a game"), form);
}

/** The form that sends a poll: a question, and options one a line or times to choose from. */
export function pollForm(roomID, done) {
  const question = h("input", {name: "body", maxlength: "2000", required: true});
  const lines = h("textarea", {name: "poll.options", rows: "3"});
  const box = (name, label) => h("label", h("input", {type: "checkbox", name}), ` ${label}`);
  // Times: a slot a line, at least two (the poll closes by the first of them).
  const slot = () => h("input", {type: "datetime-local", name: "slot", "aria-label": "Time"});
  const slots = h("div", {class: "slots", hidden: true}, slot(), slot());
  const more = btn({class: "link", hidden: true, onclick: () => { if (slots.children.length < 10) slots.append(slot()); }}, "Add a time");
  const kind = h("select", {name: "poll.kind"}, option("choice", "Options in words", true), option("time", "Times to choose from"));
  kind.addEventListener("change", () => {
    const times = kind.value === "time";
    lines.parentElement.hidden = times;
    slots.hidden = more.hidden = !times;
  });
  const error = formError();
  const form = h("form", {class: "poll-form"}, field("Question", question), field("Kind", kind), field("Options, one a line", lines),
    h("div", {"data-field-for": "poll.options"}, slots, more),
    box("multiple", "Several choices"), box("anonymous", "Anonymous"), box("one_per_option", "Sign-up list (each option once)"),
    error, h("button", {type: "submit", class: "primary"}, "Ask"));
  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    const times = kind.value === "time";
    const options = times
      ? [...slots.querySelectorAll("input")].filter((i) => i.value).map((i) => ({starts_at: new Date(i.value).toISOString()}))
      : lines.value.split("\n").map((s) => s.trim()).filter(Boolean).map((label) => ({label}));
    const poll = {kind: kind.value, options};
    for (const name of ["multiple", "anonymous", "one_per_option"]) poll[name] = form.elements[name].checked;
    try {
      await api("POST", `/v1/rooms/${roomID}/messages`, {body: question.value.trim(), client_id: crypto.randomUUID(), poll});
      form.reset();
      kind.dispatchEvent(new Event("change"));
      done();
    } catch (err) { showErrors(form, err, error); }
  });
  return form;
}
