// The inbox: invitations to accept or decline, and notifications, new ones arriving live.
import {get, post} from "../api.js";
import {btn, h, replace, status, when} from "../dom.js";
import {realtime} from "../realtime.js";

// What a notification says is the server's, in the reader's language.
const describe = (n) => n.title ?? n.kind.replaceAll("_", " ");

export function inboxView(onRead) {
  const invitations = h("ul", {class: "invitations"});
  const notifications = h("ul", {class: "notifications"});
  const invitationStatus = status("Loading…");
  const notificationStatus = status("Loading…");

  const notificationItem = (n) => {
    const d = n.data ?? {};
    const href = d.event_id ? `#/events/${d.event_id}` : d.group_id ? `#/groups/${d.group_id}` : n.kind === "data_export_ready" ? "#/me" : null;
    return h("li", {class: n.read_at ? "" : "unread"}, href ? h("a", {href}, describe(n)) : describe(n), h("span", {class: "meta"}, ` · ${when(n.created_at)}`),
      n.body ? h("p", {class: "meta"}, n.body) : null);
  };

  const invitationItem = (invitation) => {
    const answer = (verb) => async () => {
      try {
        await post(`/v1/invitations/${invitation.id}/${verb}`);
        loadInvitations();
      } catch (e) { replace(invitationStatus, e.message); }
    };
    const event = invitation.event;
    return h("li", {class: "invitation"},
      h("p", `${invitation.inviter.name} invites you to `, event ? h("a", {href: `#/events/${event.id}`}, event.title) : "an event", event ? ` · ${when(event.starts_at)}` : ""),
      invitation.status === "pending"
        ? h("div", {class: "actions"}, btn({class: "primary", onclick: answer("accept")}, "Accept"), btn({onclick: answer("decline")}, "Decline"))
        : h("p", {class: `pill ${invitation.status}`}, invitation.status[0].toUpperCase() + invitation.status.slice(1)));
  };

  // Places offered as a substitute.
  const offers = h("ul", {class: "invitations"});
  get("/v1/me/substitute-offers").then((p) => replace(offers, p.items.map((o) => h("li", `${o.requester.name} cannot come to `,
    h("a", {href: `#/events/${o.event_id}`}, o.event_title), ` · ${when(o.starts_at)} `, btn({class: "primary", onclick: () =>
      post(`/v1/substitutes/${o.id}/accept`).then(() => { location.hash = `#/events/${o.event_id}`; }, (e) => replace(offers, h("li", e.message)))}, "Take the place")))), () => {});

  async function loadInvitations() {
    try {
      const page = await get("/v1/me/invitations?limit=50");
      replace(invitations, page.items.map(invitationItem));
      replace(invitationStatus, page.items.length ? "" : "No invitations.");
    } catch (e) { replace(invitationStatus, e.message); }
  }

  async function loadNotifications() {
    try {
      const page = await get("/v1/me/notifications?limit=50");
      replace(notifications, page.items.map(notificationItem));
      replace(notificationStatus, page.items.length ? "" : "Nothing yet.");
      if (page.items.some((n) => !n.read_at)) await post("/v1/me/notifications/read", {all: true});
      onRead();
    } catch (e) { replace(notificationStatus, e.message); }
  }

  const live = (e) => {
    notifications.prepend(notificationItem(e.detail));
    replace(notificationStatus, `New: ${describe(e.detail)}`);
    if (e.detail.kind === "invitation") loadInvitations();
    post("/v1/me/notifications/read", {all: true}).then(onRead).catch(() => {});
  };
  realtime.addEventListener("notification", live);
  loadInvitations();
  loadNotifications();
  return {
    element: h("section", {class: "inbox"}, h("h1", "Inbox"), h("h2", "Invitations"), invitationStatus, invitations, offers, h("h2", "Notifications"), notificationStatus, notifications),
    leave: () => realtime.removeEventListener("notification", live),
  };
}
