// One socket per tab for chat and live notifications. It reconnects by itself and
// resumes each room from its last seq and change, so nothing is missed or repeated;
// unconfirmed messages are sent again with the same client_id: nothing doubles.
import {session} from "./api.js";

/** Error codes after which the same frame is sent again (the server asks for it). */
export const RETRY = new Set(["unavailable", "rate_limited", "overloaded", "read_only"]);

class Realtime extends EventTarget {
  constructor() {
    super();
    this.socket = null;
    this.open = false;
    this.delay = 500;
    this.chats = new Map(); // room id → {afterSeq, afterChange, listener}
    this.roomWatchers = new Set(); // listeners of room_updated / room_removed
    this.pending = new Map(); // client_id → frame
  }

  start() {
    if (this.socket || !session.signedIn) return;
    const scheme = location.protocol === "https:" ? "wss" : "ws";
    // The session cookie goes with the upgrade: no token in the URL.
    const socket = new WebSocket(`${scheme}://${location.host}/v1/ws`);
    this.socket = socket;
    socket.addEventListener("open", () => {
      if (this.socket !== socket) return;
      this.open = true;
      this.delay = 500;
      this.dispatchEvent(new Event("state"));
      this.dispatchEvent(new Event("reconnected"));
      for (const [roomID, chat] of this.chats) this.raw({type: "subscribe", room_id: roomID, after_seq: chat.afterSeq(), after_change: chat.afterChange, poll_votes: true});
      if (this.roomWatchers.size) this.raw({type: "watch_rooms"});
      for (const frame of this.pending.values()) this.raw(frame);
    });
    socket.addEventListener("message", (e) => {
      let frame;
      try { frame = JSON.parse(e.data); } catch { return; }
      if (frame.type === "sent") {
        this.pending.delete(frame.client_id);
        dispatchEvent(new Event("writable"));
      }
      // The database fails over: saving is paused, and what is pending is sent again after.
      if (frame.type === "error" && frame.code === "read_only") dispatchEvent(new Event("readonly"));
      if (frame.type === "database") {
        dispatchEvent(new Event(frame.writable ? "writable" : "readonly"));
        // Writes resumed: what waits for an answer goes again within a second (stored at
        // most once by client_id), spread so that every client does not come back at once.
        if (frame.writable) {
          for (const [clientID, pending] of this.pending) {
            setTimeout(() => { if (this.pending.get(clientID) === pending) this.raw(pending); }, Math.random() * 1000);
          }
        }
      }
      if (frame.type === "error" && frame.client_id) {
        const pending = this.pending.get(frame.client_id);
        if (pending && RETRY.has(frame.code)) {
          // Sent again with the same client_id (stored at most once), after the wait the
          // server asked for, spread so that refused clients do not all come back at once.
          const wait = (frame.retry_after ?? 2) * 1000 * (0.5 + Math.random());
          setTimeout(() => { if (this.pending.get(frame.client_id) === pending) this.raw(pending); }, wait);
          return;
        }
        this.pending.delete(frame.client_id);
      }
      if (frame.type === "notification") this.dispatchEvent(new CustomEvent("notification", {detail: frame.notification}));
      if (frame.type === "room_updated" || frame.type === "room_removed") for (const watcher of this.roomWatchers) watcher(frame);
      const chat = frame.room_id && this.chats.get(frame.room_id);
      if (chat && typeof frame.after_change === "number") chat.afterChange = Math.max(chat.afterChange, frame.after_change);
      chat?.listener(frame);
    });
    socket.addEventListener("close", (e) => {
      if (this.socket !== socket) return; // an older socket, replaced already
      this.socket = null;
      this.open = false;
      this.dispatchEvent(new Event("state"));
      if (e.code === 4001) {
        // The session ended (signed out elsewhere, password changed, account deleted).
        session.signedIn = false;
        session.user = null;
        dispatchEvent(new Event("signedout"));
        return;
      }
      if (!session.signedIn) return;
      setTimeout(() => this.start(), this.delay);
      this.delay = Math.min(10_000, this.delay * 2);
    });
  }

  stop() {
    const socket = this.socket;
    this.socket = null;
    this.chats.clear();
    this.roomWatchers.clear();
    this.pending.clear();
    socket?.close(1000);
  }

  raw(frame) {
    if (this.open) this.socket.send(JSON.stringify(frame));
  }

  /**
   * Follows one room: `afterSeq()` is the last seq held and `afterChange` the change
   * position the history was read at; `listener` gets the room's frames.
   */
  follow(roomID, afterSeq, afterChange, listener) {
    this.chats.set(roomID, {afterSeq, afterChange, listener});
    this.start();
    this.raw({type: "subscribe", room_id: roomID, after_seq: afterSeq(), after_change: afterChange, poll_votes: true});
    return () => {
      if (this.chats.get(roomID)?.listener !== listener) return;
      this.chats.delete(roomID);
      this.raw({type: "unsubscribe", room_id: roomID});
    };
  }

  /** Keeps a chats list live (`room_updated`, `room_removed`). */
  watchRooms(listener) {
    this.roomWatchers.add(listener);
    this.start();
    this.raw({type: "watch_rooms"});
    return () => this.roomWatchers.delete(listener);
  }

  /** Sends a chat message, kept until confirmed and sent again after a reconnect. */
  say(roomID, clientID, body, extra = {}) {
    const frame = {...extra, type: "message", room_id: roomID, client_id: clientID, body};
    this.pending.set(clientID, frame);
    this.raw(frame);
  }

  typing(roomID) { this.raw({type: "typing", room_id: roomID}); }
  read(roomID, seq) { this.raw({type: "read", room_id: roomID, seq}); }
}

export const realtime = new Realtime();
