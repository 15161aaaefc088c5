// Money at a game or in a group: the price (or dues), the keeper's sheet (mark paid, waive,
// answer "I paid", the CSV), a player's own balance, card payment and "I paid"; what the
// caller owes across games and groups, and connecting to Stripe; the price fields of the
// event form and the group's dues. Amounts travel in minor units and show in the reader's
// locale.
import {get, patch, post} from "../api.js";
import {btn, field, formError, h, option, replace, showErrors, status, when} from "../dom.js";

const digits = (currency) => ({ISK: 0, JPY: 0, KRW: 0})[currency] ?? 2;
export const money = (minor, currency) =>
  new Intl.NumberFormat(undefined, {style: "currency", currency}).format(minor / 10 ** digits(currency));

const priceText = (p) => `${money(p.amount, p.currency)} ${p.split ? "for the game, split between the players" : "each"}`
  + ` · leaving later than ${p.late_cancel_hours} h before the start keeps what you owe`;

const PERIOD = {week: "a week", month: "a month", year: "a year"};
const duesText = (d) => `Dues: ${money(d.amount, d.currency)} ${PERIOD[d.period]}, from the start of each (${d.time_zone}); the owner pays none`;
const CURRENCIES = ["DKK", "EUR", "SEK", "NOK", "GBP", "USD", "CHF", "PLN"];
const currencies = (current) => [...new Set([current ?? "DKK", ...CURRENCIES])].map((x) => option(x, x, (current ?? "DKK") === x));

/** The event page's money section: the price, and the sheet or the caller's own balance. */
export const moneyPanel = (event) => ledgerPanel(`/v1/events/${event.id}/ledger`, priceText(event.price), `ledger-${event.id}.csv`);

/** A group's dues: what they are, the sheet (owner and admins) or one's own; admins set them. */
export function duesPanel(group, admin) {
  const d = group.dues, panel = ledgerPanel(`/v1/groups/${group.id}/ledger`, d ? duesText(d) : "No dues now.", `dues-${group.id}.csv`, !d && !admin);
  if (admin) panel.append(duesForm(group));
  return panel;
}

function duesForm(group) {
  const d = group.dues, error = formError();
  const amount = h("input", {name: "dues.amount", type: "number", min: 0.01, step: "0.01", inputmode: "decimal", value: d ? d.amount / 10 ** digits(d.currency) : ""});
  const currency = h("select", {name: "dues.currency"}, currencies(d?.currency));
  const period = h("select", {name: "dues.period"}, Object.entries(PERIOD).map(([v, t]) => option(v, t, (d?.period ?? "month") === v)));
  const save = (dues) => patch(`/v1/groups/${group.id}`, {dues}).then(() => location.reload(), (x) => showErrors(f, x, error));
  const f = h("form", {class: "dues", onsubmit: (e) => { e.preventDefault();
    save(amount.value === "" ? null : {amount: Math.round(Number(amount.value) * 10 ** digits(currency.value)), currency: currency.value, period: period.value,
      time_zone: d?.time_zone ?? Intl.DateTimeFormat().resolvedOptions().timeZone ?? "UTC"}); }},
  h("fieldset", h("legend", "Set the dues (empty: none; a change stands from the next period)"), field("Amount", amount), field("Currency", currency), field("Every", period)),
  h("button", {class: "primary"}, "Save dues"), error);
  return f;
}

// `quiet`: shown only once there is money to show (a member of a group without dues).
function ledgerPanel(path, intro, csvName, quiet = false) {
  const body = h("div", status("Loading…")), error = formError();
  const fail = (e) => { error.hidden = false; error.textContent = e.message; };
  const act = (url, data) => post(url, data).then(show, fail);
  function show(s) {
    error.hidden = true;
    const c = s.currency;
    panel.hidden = quiet && !s.lines.length;
    // No price or dues yet, nor ever: nothing to add up.
    if (!c) return replace(body, h("p", "Nobody owes anything here."));
    if (!s.organiser_view) {
      const mine = s.lines[0]?.balance ?? 0, claim = s.claims[0];
      return replace(body, h("p", {"data-testid": "my-balance"}, mine > 0 ? `You owe ${money(mine, c)}` : mine < 0 ? `You are owed ${money(-mine, c)}` : "You owe nothing here"),
        mine > 0 && s.pay_by_card ? btn({class: "primary", onclick: () => post(`${path}/checkout`).then((r) => location.assign(r.url), fail)}, "Pay by card") : null,
        claim ? h("p", {class: "pill"}, `You said you paid ${money(claim.amount, c)}: it waits to be confirmed`) : mine > 0 ? claimForm() : null);
    }
    replace(body, s.lines.length ? h("table", {class: "sheet", "data-testid": "money-sheet", tabindex: 0, "aria-label": "Who owes what"},
      h("thead", h("tr", ["Player", "Owed", "Paid", "Balance", ""].map((t) => h("th", {scope: "col"}, t)))),
      h("tbody", s.lines.map((l) => h("tr", {"data-testid": "money-line"},
        h("th", {scope: "row"}, l.user.name, l.going ? "" : " (left)"), h("td", money(l.charged, c)), h("td", money(l.paid, c)), h("td", money(l.balance, c)),
        h("td", l.balance > 0 ? [
          btn({"aria-label": `${l.user.name} paid in cash`, onclick: () => act(`${path}/payments`, {user_ids: [l.user.id], means: "cash"})}, "Paid in cash"),
          l.charged > 0 ? btn({"aria-label": `Waive what ${l.user.name} owes`, onclick: () => act(`${path}/waivers`, {user_id: l.user.id})}, "Waive") : null] : null))))) : h("p", "Nobody owes anything yet."),
    h("p", {"data-testid": "money-total"}, `Still owed ${money(s.total.balance, c)} · paid ${money(s.total.paid, c)}`),
    s.claims.map((x) => h("p", {"data-testid": "claim"}, `${x.user.name} says they paid ${money(x.amount, c)} by ${x.means}`, x.note ? ` (${x.note}) ` : " ",
      btn({onclick: () => act(`/v1/payment-claims/${x.id}/confirm`)}, "Confirm"), btn({onclick: () => act(`/v1/payment-claims/${x.id}/decline`)}, "Decline"))),
    h("p", h("a", {href: `${path}.csv`, download: csvName}, "Download the ledger (CSV)")));
  }
  function claimForm() {
    const means = h("select", {name: "means"}, option("transfer", "by transfer"), option("cash", "in cash"));
    const f = h("form", {class: "actions", onsubmit: (e) => { e.preventDefault(); post(`${path}/claims`, {means: means.value}).then(load, (x) => showErrors(f, x, error)); }},
      h("label", "I paid ", means), h("button", {class: "primary"}, "I paid"));
    return f;
  }
  const load = () => get(path).then(show, (e) => replace(body, status(e.message)));
  const panel = h("section", {class: "card", "aria-labelledby": "money-heading"}, h("h2", {id: "money-heading"}, "Money"),
    h("p", {"data-testid": "price"}, intro), body, error);
  load();
  return panel;
}

/** `#/money`: what the caller owes, or is owed, at each game and in each group's dues; taking card payments as an organiser. */
export function balancesView() {
  const list = h("ul", {class: "balances"}, h("li", status("Loading…"))), cards = h("div");
  get("/v1/me/payouts").then((p) => p.card_payments && replace(cards, h("h2", "Card payments"), p.charges_enabled
    ? h("p", {"data-testid": "payouts"}, "You take card payments for your games.")
    : btn({onclick: () => post("/v1/me/payouts").then((r) => location.assign(r.url), (e) => cards.append(status(e.message)))},
      p.connected ? "Finish connecting with Stripe" : "Take card payments: connect with Stripe")), () => {});
  const owes = (who, b) => b.amount > 0 ? `you owe ${who} ${money(b.amount, b.currency)}` : `${who} owes you ${money(-b.amount, b.currency)}`;
  get("/v1/me/balances").then((page) => replace(list, page.items.length + page.groups.length ? [
    ...page.items.map((b) => h("li", {"data-testid": "balance"}, h("a", {href: `#/events/${b.event_id}`}, b.title), ` · ${when(b.starts_at)} · `, owes(b.organiser.name, b))),
    ...page.groups.map((b) => h("li", {"data-testid": "balance"}, h("a", {href: `#/groups/${b.group_id}`}, b.name), " · dues · ", owes(b.owner.name, b)))]
    : h("li", "You owe nothing, and nobody owes you.")), (e) => replace(list, h("li", e.message)));
  return h("section", {class: "card"}, h("h1", "Money"), list, cards);
}

/** The event form's price: a fieldset whose `price()` is the body's `price` (undefined: unchanged). */
export function priceFields(event) {
  const p = event?.price;
  const amount = h("input", {name: "price.amount", type: "number", min: 0, step: "0.01", inputmode: "decimal", value: p ? p.amount / 10 ** digits(p.currency) : ""});
  const currency = h("select", {name: "price.currency"}, currencies(p?.currency));
  const split = h("input", {type: "checkbox", checked: p?.split});
  const hours = h("input", {name: "price.late_cancel_hours", type: "number", min: 0, max: 168, value: p?.late_cancel_hours ?? 24});
  const set = h("fieldset", {class: "price"}, h("legend", "Price (empty: free)"), field("Amount", amount), field("Currency", currency),
    h("label", {class: "check"}, split, "The whole game's cost, split between the players"), field("Free to leave until (hours before)", hours));
  set.price = () => amount.value === "" ? (p ? null : undefined)
    : {amount: Math.round(Number(amount.value) * 10 ** digits(currency.value)), currency: currency.value, split: split.checked, late_cancel_hours: Number(hours.value || 24)};
  return set;
}
