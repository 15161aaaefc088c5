// The inbox: invitations to accept or decline, and notifications, new ones arriving live.
import {get, post} from "../api.js";
import {h, replace, status, when} from "../dom.js";
import {realtime} from "../realtime.js";

const describe = {
  invitation: (d) => `${d.inviter?.name ?? "Someone"} invited you to ${d.event_title ?? "an event"}`,
  invitation_accepted: (d) => `${d.invitee?.name ?? "Someone"} accepted your invitation to ${d.event_title ?? "your event"}`,
  waitlist_promoted: (d) => `A place opened up: you are going to ${d.event_title ?? "the event"}`,
  event_updated: (d) => `${d.event_title ?? "An event"} changed`,
  event_cancelled: (d) => `${d.event_title ?? "An event"} was cancelled` + (d.reason === "not_enough_players" ? ": not enough players" : ""),
  waitlist_offer: (d) => `A place for you at ${d.event_title ?? "a game"}: take it before ${d.expires_at ? new Date(d.expires_at).toLocaleTimeString([], {hour: "2-digit", minute: "2-digit"}) : "it passes on"}`,
  waitlist_offer_expired: (d) => `The place at ${d.event_title ?? "a game"} passed on`,
  game_on: (d) => `Game on: ${d.event_title ?? "a game"} has enough players`,
  chat_message: (d) => `New messages in ${d.event_title ?? "a chat"}`,
  group_request: (d) => `${d.requester?.name ?? "Someone"} asks to join ${d.group_name ?? "your group"}`,
  group_request_accepted: (d) => `You are a member of ${d.group_name ?? "the group"} now`,
  group_request_refused: (d) => `${d.group_name ?? "The group"} did not accept your request`,
  group_event: (d) => `New game in ${d.group_name ?? "your group"}: ${d.event_title ?? "a game"}`,
  moderation: (d) => ({warn: "A warning from the moderators", remove: "The moderators removed something of yours", limit: "The moderators limited your account", suspend: "The moderators suspended your account", lift: "The limit or suspension on your account has ended"}[d.action] ?? "A note from the moderators") + (d.reason ? `: ${d.reason}` : ""),
  report_outcome: (d) => d.outcome === "acted" ? "Your report was reviewed: the moderators acted on it" : "Your report was reviewed: nothing against the rules was found",
  appeal_decided: (d) => (d.decision === "reversed" ? "Your appeal was granted" : "Your appeal was turned down") + (d.reason ? `: ${d.reason}` : ""),
  data_export_ready: () => "Your data is ready to download from your profile",
  // Written by the server in the person's language.
  reminder: (d) => d.body ?? `Reminder: ${d.event_title ?? "a game"}`,
};

export function inboxView(onRead) {
  const invitations = h("ul", {class: "invitations"});
  const notifications = h("ul", {class: "notifications"});
  const invitationStatus = status("Loading…");
  const notificationStatus = status("Loading…");

  const notificationItem = (n) => {
    const d = n.data ?? {};
    const text = (describe[n.kind] ?? (() => n.kind))(d);
    const href = d.event_id ? `#/events/${d.event_id}` : d.group_id ? `#/groups/${d.group_id}` : n.kind === "data_export_ready" ? "#/me" : null;
    const target = href ? h("a", {href}, text) : text;
    return h("li", {class: n.read_at ? "" : "unread"}, target, h("span", {class: "meta"}, ` · ${when(n.created_at)}`));
  };

  const invitationItem = (invitation) => {
    const answer = (verb) => async () => {
      try {
        await post(`/v1/invitations/${invitation.id}/${verb}`);
        loadInvitations();
      } catch (error) { replace(invitationStatus, error.message); }
    };
    const event = invitation.event;
    return h("li", {class: "invitation"},
      h("p", {}, `${invitation.inviter.name} invites you to `, event ? h("a", {href: `#/events/${event.id}`}, event.title) : "an event", event ? ` · ${when(event.starts_at)}` : ""),
      invitation.status === "pending"
        ? h("div", {class: "actions"}, h("button", {type: "button", class: "primary", onclick: answer("accept")}, "Accept"), h("button", {type: "button", onclick: answer("decline")}, "Decline"))
        : h("p", {class: `pill ${invitation.status}`}, invitation.status[0].toUpperCase() + invitation.status.slice(1)));
  };

  async function loadInvitations() {
    try {
      const page = await get("/v1/me/invitations?limit=50");
      replace(invitations, page.items.map(invitationItem));
      replace(invitationStatus, page.items.length ? "" : "No invitations.");
    } catch (error) { replace(invitationStatus, error.message); }
  }

  async function loadNotifications() {
    try {
      const page = await get("/v1/me/notifications?limit=50");
      replace(notifications, page.items.map(notificationItem));
      replace(notificationStatus, page.items.length ? "" : "Nothing yet.");
      if (page.items.some((n) => !n.read_at)) await post("/v1/me/notifications/read", {all: true});
      onRead();
    } catch (error) { replace(notificationStatus, error.message); }
  }

  const live = (e) => {
    notifications.prepend(notificationItem(e.detail));
    replace(notificationStatus, `New: ${(describe[e.detail.kind] ?? (() => e.detail.kind))(e.detail.data ?? {})}`);
    if (e.detail.kind === "invitation") loadInvitations();
    post("/v1/me/notifications/read", {all: true}).then(onRead).catch(() => {});
  };
  realtime.addEventListener("notification", live);
  loadInvitations();
  loadNotifications();
  return {
    element: h("section", {class: "inbox"}, h("h1", {}, "Inbox"), h("h2", {}, "Invitations"), invitationStatus, invitations, h("h2", {}, "Notifications"), notificationStatus, notifications),
    leave: () => realtime.removeEventListener("notification", live),
  };
}
