"""Sends N requests of one kind, one after another on one keep-alive connection, to a
server measured by callgrind (Benchmarks/instructions/run). Prints nothing on success
but, for the nearby kinds, how many items a page held on average; fails loudly on any
non-2xx answer, so a count never includes an error path.

Modes: health, nearby, people, send (a chat message over HTTP, nobody subscribed),
deliver (the same with one socket subscribed to the room, which reads every message).
"""
import argparse, asyncio, datetime, http.client, json, sys, threading, uuid


def request(conn, method, path, token=None, body=None):
    headers = {"Accept": "application/json"}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    if body is not None:
        headers["Content-Type"] = "application/json"
        body = json.dumps(body)
    conn.request(method, path, body=body, headers=headers)
    reply = conn.getresponse()
    data = reply.read()
    if reply.status >= 300:
        sys.exit(f"{method} {path}: {reply.status} {data[:300]!r}")
    return json.loads(data) if data and data[:1] in b"{[" else None


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--port", type=int, required=True)
    p.add_argument("--mode", required=True)
    p.add_argument("--count", type=int, default=300)
    p.add_argument("--token", default="")
    p.add_argument("--centres", default="")
    a = p.parse_args()
    conn = http.client.HTTPConnection("127.0.0.1", a.port, timeout=120)
    centres = [line.split() for line in open(a.centres)] if a.centres else [("48.8566", "2.3522")]
    if a.mode in ("send", "deliver"):
        # A room of its own, with no message yet, for each batch.
        a.event = request(conn, "POST", "/v1/events", a.token, {
            "title": "Counted chat", "sport": "football", "starts_at": (datetime.datetime.now(datetime.timezone.utc) + datetime.timedelta(days=2)).strftime("%Y-%m-%dT%H:00:00Z"), "location": {"lat": 48.8566, "lon": 2.3522}})["id"]
    if a.mode == "deliver":
        asyncio.run(deliver(a, conn))
        return
    items = 0
    for i in range(a.count):
        lat, lon = centres[i % len(centres)]
        if a.mode == "health":
            request(conn, "GET", "/health")
        elif a.mode == "nearby":
            items += len(request(conn, "GET", f"/v1/events/nearby?lat={lat}&lon={lon}&radius_km=5&limit=50", a.token)["items"])
        elif a.mode == "people":
            items += len(request(conn, "GET", f"/v1/users/nearby?lat={lat}&lon={lon}&radius_km=5&limit=50", a.token)["items"])
        elif a.mode == "send":
            request(conn, "POST", f"/v1/events/{a.event}/messages", a.token, {"body": f"message {i}", "client_id": str(uuid.uuid4())})
        else:
            sys.exit(f"unknown mode {a.mode}")
    if a.mode in ("nearby", "people"):
        print(f"{items / a.count:.1f}")


async def deliver(a, conn):
    import websockets
    async with websockets.connect(f"ws://127.0.0.1:{a.port}/v1/ws?access_token={a.token}", max_size=2**22, open_timeout=120) as ws:
        await ws.send(json.dumps({"type": "subscribe", "event_id": a.event, "after_seq": 0}))
        while json.loads(await ws.recv()).get("type") != "subscribed":
            pass
        # The sends go from a thread; this task reads every message frame they cause.
        done = threading.Event()
        def sender():
            for i in range(a.count):
                request(conn, "POST", f"/v1/events/{a.event}/messages", a.token, {"body": f"message {i}", "client_id": str(uuid.uuid4())})
            done.set()
        threading.Thread(target=sender, daemon=True).start()
        received = 0
        while received < a.count:
            frame = json.loads(await asyncio.wait_for(ws.recv(), 300))
            if frame.get("type") == "message":
                received += 1


main()
