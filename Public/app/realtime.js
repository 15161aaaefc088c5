// One socket per tab for chat and live notifications. It reconnects by itself
// (backing off up to 10 s) and subscribes again from the last seq each chat holds, so
// nothing sent meanwhile is missed; messages not yet confirmed are sent again with
// the same client_id, which the server answers with the original: nothing doubles.
import {session} from "./api.js";

/** Error codes after which the same frame is sent again (the server asks for it). */
const RETRY = new Set(["unavailable", "rate_limited"]);

class Realtime extends EventTarget {
  constructor() {
    super();
    this.socket = null;
    this.open = false;
    this.delay = 500;
    this.chats = new Map(); // event id → {afterSeq, listener}
    this.pending = new Map(); // client_id → frame
  }

  start() {
    if (this.socket || !session.token) return;
    const scheme = location.protocol === "https:" ? "wss" : "ws";
    const socket = new WebSocket(`${scheme}://${location.host}/v1/ws?access_token=${encodeURIComponent(session.token)}`);
    this.socket = socket;
    socket.addEventListener("open", () => {
      if (this.socket !== socket) return;
      this.open = true;
      this.delay = 500;
      this.dispatchEvent(new Event("state"));
      this.dispatchEvent(new Event("reconnected"));
      for (const [eventID, chat] of this.chats) this.raw({type: "subscribe", event_id: eventID, after_seq: chat.afterSeq()});
      for (const frame of this.pending.values()) this.raw(frame);
    });
    socket.addEventListener("message", (e) => {
      let frame;
      try { frame = JSON.parse(e.data); } catch { return; }
      if (frame.type === "sent") this.pending.delete(frame.client_id);
      if (frame.type === "error" && frame.client_id) {
        const pending = this.pending.get(frame.client_id);
        if (pending && RETRY.has(frame.code)) {
          // Sent again with the same client_id: stored at most once.
          setTimeout(() => { if (this.pending.get(frame.client_id) === pending) this.raw(pending); }, 2000);
          return;
        }
        this.pending.delete(frame.client_id);
      }
      if (frame.type === "notification") this.dispatchEvent(new CustomEvent("notification", {detail: frame.notification}));
      const chat = frame.event_id && this.chats.get(frame.event_id);
      chat?.listener(frame);
    });
    socket.addEventListener("close", (e) => {
      if (this.socket !== socket) return; // an older socket, replaced already
      this.socket = null;
      this.open = false;
      this.dispatchEvent(new Event("state"));
      if (e.code === 4001) {
        // The session ended (signed out elsewhere, password changed, account deleted).
        session.token = null;
        session.user = null;
        dispatchEvent(new Event("signedout"));
        return;
      }
      if (!session.token) return;
      setTimeout(() => this.start(), this.delay);
      this.delay = Math.min(10_000, this.delay * 2);
    });
  }

  stop() {
    const socket = this.socket;
    this.socket = null;
    this.chats.clear();
    this.pending.clear();
    socket?.close(1000);
  }

  raw(frame) {
    if (this.open) this.socket.send(JSON.stringify(frame));
  }

  /** Follows one event's chat: `afterSeq()` is the last seq held, `listener` gets its frames. */
  follow(eventID, afterSeq, listener) {
    this.chats.set(eventID, {afterSeq, listener});
    this.start();
    this.raw({type: "subscribe", event_id: eventID, after_seq: afterSeq()});
    return () => {
      if (this.chats.get(eventID)?.listener !== listener) return;
      this.chats.delete(eventID);
      this.raw({type: "unsubscribe", event_id: eventID});
    };
  }

  /** Sends a chat message; kept until the server confirms it, and sent again after a reconnect. */
  say(eventID, clientID, body) {
    const frame = {type: "message", event_id: eventID, client_id: clientID, body};
    this.pending.set(clientID, frame);
    this.raw(frame);
  }

  typing(eventID) { this.raw({type: "typing", event_id: eventID}); }
  read(eventID, seq) { this.raw({type: "read", event_id: eventID, seq}); }
}

export const realtime = new Realtime();
