// SportLook's service worker, served at /sw.js: shows the notifications the server
// pushes (Web Push, encrypted for this browser) even when no SportLook tab is open,
// and opens the app where a notification points when it is clicked.
self.addEventListener("push", (event) => {
  let message = {};
  try {
    message = event.data ? event.data.json() : {};
  } catch {
    message = {body: event.data ? event.data.text() : ""};
  }
  const data = message.data || {};
  const thread = data.event_id || data.room_id || message.kind || "sportlook";
  event.waitUntil(self.registration.showNotification(message.title || "SportLook", {
    body: message.body || "",
    tag: `${message.kind || "notification"}:${thread}`,
    renotify: true,
    data: {id: message.id, kind: message.kind, event_id: data.event_id},
  }));
});

self.addEventListener("notificationclick", (event) => {
  event.notification.close();
  const eventID = event.notification.data && event.notification.data.event_id;
  const target = new URL(eventID ? `/#/events/${eventID}` : "/#/inbox", self.location.origin).href;
  event.waitUntil((async () => {
    const open = await self.clients.matchAll({type: "window", includeUncontrolled: true});
    const tab = open.find((c) => new URL(c.url).origin === self.location.origin);
    if (tab) {
      await tab.focus();
      return tab.navigate ? tab.navigate(target) : null;
    }
    return self.clients.openWindow(target);
  })());
});
