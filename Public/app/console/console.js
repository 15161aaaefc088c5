// The moderation console at /admin: the reports queue, appeals, an account, the audit
// log, the abuse panel and (admins) the staff. The server serves this page only to staff; every call it
// makes is a staff route of the public API, checked again on the server.
import {h, replace} from "../dom.js";
import {queueView} from "./queue.js";
import {appealsView} from "./appeals.js";
import {accountView} from "./account.js";
import {auditView} from "./audit.js";
import {staffView} from "./staff.js";
import {accountsView} from "./accounts.js";
import {jobsView} from "./jobs.js";
import {abuseView} from "./abuse.js";

const main = document.getElementById("view");
const nav = document.getElementById("nav");

const routes = [
  [/^#\/(queue)?$/, () => queueView()],
  [/^#\/appeals$/, () => appealsView()],
  [/^#\/accounts$/, () => accountsView()],
  [/^#\/accounts\/([0-9a-f-]{36})$/, (id) => accountView(id)],
  [/^#\/jobs$/, () => jobsView()],
  [/^#\/abuse$/, () => abuseView()],
  [/^#\/audit$/, () => auditView()],
  [/^#\/staff$/, () => staffView()],
];

function link(href, label) {
  const current = (location.hash || "#/") === href || (href === "#/" && location.hash === "#/queue");
  return h("li", h("a", {href, "aria-current": current ? "page" : undefined}, label));
}

function render() {
  replace(nav, h("ul", link("#/", "Reports"), link("#/appeals", "Appeals"), link("#/accounts", "Accounts"), link("#/audit", "Audit log"), link("#/staff", "Staff"), link("#/jobs", "Jobs"), link("#/abuse", "Abuse"),
    h("li", h("a", {href: "/"}, "App"))));
  const hash = location.hash || "#/";
  for (const [pattern, view] of routes) {
    const match = hash.match(pattern);
    if (!match) continue;
    const screen = view(...match.slice(1));
    replace(main, screen.element);
    document.title = `${screen.title} · SportLook console`;
    main.focus({preventScroll: true});
    return;
  }
  replace(main, h("h1", "Not found"));
}

addEventListener("hashchange", render);
render();
