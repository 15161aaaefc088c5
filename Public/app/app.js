// SportLook's web client: a hash router over the screens, the session in the server's
// HttpOnly cookie (a reload stays signed in), the live socket for chat and notifications.
import {afterSignIn, get, session} from "./api.js";
import {h, later, replace} from "./dom.js";
import {realtime} from "./realtime.js";
import {finishProviderSignIn} from "./providers.js";
import {authView} from "./views/auth.js";
import {nearbyView} from "./views/nearby.js";
import {eventView} from "./views/event.js";
import {composeView} from "./views/compose.js";
import {inboxView} from "./views/inbox.js";
import {peopleView} from "./views/people.js";
import {chatsView, conversationView} from "./views/chats.js";
import {profileView} from "./views/profile.js";
import {groupsView, groupView} from "./views/groups.js";

const main = document.getElementById("view");
const nav = document.getElementById("nav");
const settings = {
  tileURL: document.querySelector('meta[name="sportlook-tiles"]')?.content || "",
  attribution: document.querySelector('meta[name="sportlook-tiles-attribution"]')?.content || "",
};
let unread = 0;
let leave = null;

let signInProblem = null;
const routes = [
  [/^#\/signin$/, () => { const problem = signInProblem; signInProblem = null; return authView(problem); }],
  [/^#\/(nearby)?$/, () => nearbyView(settings)],
  [/^#\/events\/new$/, () => composeView(settings)],
  [/^#\/groups\/([0-9a-f-]{36})\/events\/new$/, (group) => composeView(settings, null, group)],
  [/^#\/events\/([0-9a-f-]{36})\/edit$/, (id) => composeView(settings, id)],
  [/^#\/events\/([0-9a-f-]{36})$/, (id) => eventView(id, settings)],
  [/^#\/inbox$/, () => inboxView(() => setUnread(0))],
  [/^#\/people$/, () => peopleView()],
  [/^#\/chats$/, () => chatsView()],
  [/^#\/chats\/([0-9a-f-]{36})$/, (id) => conversationView(id)],
  [/^#\/me$/, () => profileView(settings)],
  [/^#\/groups$/, () => groupsView()],
  [/^#\/money$/, () => ({element: later("money", (m) => m.balancesView())})],
  [/^#\/groups\/([0-9a-f-]{36})(?:\/join\/([A-Za-z0-9_-]{43}))?$/, (id, invite) => groupView(id, invite)],
];

function link(href, label, extra) {
  const current = (location.hash || "#/") === href || (href === "#/" && location.hash === "#/nearby");
  return h("a", {href, "aria-current": current ? "page" : undefined}, label, extra);
}

function renderNav() {
  if (!session.signedIn) { replace(nav); return; }
  replace(nav, h("ul", {},
    h("li", link("#/", "Nearby")),
    h("li", link("#/events/new", "New event")),
    h("li", link("#/people", "People")),
    h("li", link("#/groups", "Groups")),
    h("li", link("#/chats", "Chats")),
    h("li", link("#/money", "Money")),
    h("li", link("#/inbox", "Inbox", unread ? h("span", {class: "badge"}, String(unread), h("span", {class: "visually-hidden"}, " unread")) : null)),
    h("li", link("#/me", "Me"))));
}

/** The badge alone changes: the rest of the nav (and its focus) stays. */
function setUnread(count) {
  unread = count;
  const inbox = nav.querySelector('a[href="#/inbox"]');
  if (!inbox) return;
  inbox.querySelector(".badge")?.remove();
  if (unread) inbox.append(h("span", {class: "badge"}, String(unread), h("span", {class: "visually-hidden"}, " unread")));
}

async function route() {
  leave?.();
  leave = null;
  const hash = location.hash || "#/";
  if (!session.signedIn && hash !== "#/signin") { if (hash !== "#/") afterSignIn.remember(hash); location.replace("#/signin"); return; }
  if (session.signedIn && hash === "#/signin") { location.replace(afterSignIn.peek() ?? "#/"); return; }
  renderNav();
  for (const [pattern, view] of routes) {
    const match = hash.match(pattern);
    if (!match) continue;
    if (session.signedIn) afterSignIn.done(hash);
    const screen = view(...match.slice(1));
    replace(main, screen.element);
    leave = screen.leave ?? null;
    main.focus({preventScroll: true});
    return;
  }
  replace(main, h("h1", "Not found"), h("p", h("a", {href: "#/"}, "Back to events nearby")));
}

async function refreshInbox() {
  try {
    const page = await get("/v1/me/notifications?limit=100");
    setUnread(page.items.filter((n) => !n.read_at).length);
  } catch { /* the inbox screen shows errors */ }
}

// The title follows the screen's heading, also when a screen draws it later.
new MutationObserver(() => {
  const heading = main.querySelector("h1");
  const title = heading ? `${heading.textContent} · SportLook` : "SportLook";
  if (document.title !== title) document.title = title;
}).observe(main, {childList: true, subtree: true, characterData: true});

// The skip link moves focus; it must not change the route.
document.querySelector(".skip")?.addEventListener("click", (e) => { e.preventDefault(); main.focus(); });

// Another tab signed out or in: this one follows.
addEventListener("storage", (e) => {
  if (e.key !== "sportlook.signedIn") return;
  if (!e.newValue) { session.user = null; dispatchEvent(new Event("signedout")); } else location.reload();
});

addEventListener("hashchange", route);
addEventListener("signedin", () => { realtime.start(); refreshInbox(); route(); });
// The server ends a session's push registrations with it; forget ours here too.
addEventListener("signedout", () => { realtime.stop(); setUnread(0); localStorage.removeItem("sportlook.pushDevice"); location.hash = "#/signin"; route(); });
realtime.addEventListener("notification", () => setUnread(unread + 1));
// What arrived while the socket was down is counted again.
realtime.addEventListener("reconnected", () => refreshInbox());
// Saving paused while the database fails over; gone at the next write that goes through.
const readOnly = h("p", {class: "banner", role: "status", hidden: true},
  "Saving is paused for a moment while the service switches databases. You can keep reading; messages you send are kept and sent when it is back.");
document.querySelector(".top").after(readOnly);
addEventListener("readonly", () => { readOnly.hidden = false; });
addEventListener("writable", () => { readOnly.hidden = true; });
realtime.addEventListener("state", () => document.body.classList.toggle("offline", !realtime.open && !!session.signedIn));

// Back from a provider's sign-in page: finish it, then show where it led.
finishProviderSignIn().then((result) => {
  if (!result) {
    if (session.signedIn) { realtime.start(); refreshInbox(); }
    route();
  } else {
    location.replace(afterSignIn.peek() ?? (result.user.location ? "#/" : "#/me"));
  }
}).catch((error) => {
  signInProblem = error;
  route();
});
