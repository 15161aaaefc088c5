#!/usr/bin/env python3
"""Apple's, Google's and a browser's push services for the tests, in one local
server over TLS (HTTP/2 and HTTP/1.1 by ALPN; hypercorn, trustme, PyJWT, http_ece).

    /3/device/<token>                APNs: HTTP/2 only; verifies the provider JWT (ES256,
                                     the key in OUTDIR/apns_key.p8, kid and iss from
                                     OUTDIR/apns.json), apns-topic, apns-push-type, the payload
    /token                           Google's OAuth token endpoint: verifies the RS256
                                     assertion against OUTDIR/fcm_account.json, grants tokens
    /v1/projects/<p>/messages:send   FCM HTTP v1: a granted, unrevoked bearer token
    /push/<id>                       Web Push: verifies the VAPID JWT with the key it names
                                     (RFC 8292) and decrypts the body (RFC 8291) with the
                                     subscription's private key, OUTDIR/subscriptions/<id>.pem
                                     and its secret <id>.auth (written by the test)

Answers follow OUTDIR/script.json, {"apns"|"fcm"|"webpush"|"token": [answer, ...]},
consumed in order and re-read when the file changes; an answer is "ok", "gone",
"expired" (APNs ExpiredProviderToken, FCM 401 revoking the token), "bad" (a final
4xx), "badtoken" (APNs 400 BadDeviceToken), or a status number. Every request is appended to OUTDIR/requests.jsonl with
what the checks found ("problems", empty when all held) and what it carried.

At start it makes a test authority (OUTDIR/ca.pem), an APNs key (apns_key.p8,
apns.json) and a service account (fcm_account.json) when they are not there.

Usage: push_server.py PORT OUTDIR
"""
import asyncio
import base64
import json
import os
import signal
import sys
import threading
import time
import urllib.parse

import http_ece
import jwt
import trustme
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec, rsa
from hypercorn.asyncio import serve
from hypercorn.config import Config

PORT, OUT = int(sys.argv[1]), sys.argv[2]
ORIGIN = "https://localhost:%d" % PORT


def b64url(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def unb64url(text):
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def setup():
    os.makedirs(os.path.join(OUT, "subscriptions"), exist_ok=True)
    if not os.path.exists(os.path.join(OUT, "ca.pem")):
        ca = trustme.CA()
        cert = ca.issue_cert("localhost", "127.0.0.1", "::1")
        cert.private_key_and_cert_chain_pem.write_to_path(os.path.join(OUT, "server.pem"))
        ca.cert_pem.write_to_path(os.path.join(OUT, "ca.pem.tmp"))
        key = ec.generate_private_key(ec.SECP256R1())
        with open(os.path.join(OUT, "apns_key.p8"), "wb") as f:
            f.write(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()))
        with open(os.path.join(OUT, "apns.json"), "w") as f:
            json.dump({"key_id": "ABC123DEFG", "team_id": "TEAM123456", "topic": "com.example.sportlook"}, f)
        rsa_key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        with open(os.path.join(OUT, "fcm_account.json"), "w") as f:
            json.dump({
                "type": "service_account", "project_id": "sportlook-test", "client_email": "push@sportlook-test.iam.gserviceaccount.com",
                "private_key": rsa_key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()).decode(),
                "token_uri": ORIGIN + "/token",
            }, f)
        os.rename(os.path.join(OUT, "ca.pem.tmp"), os.path.join(OUT, "ca.pem"))


setup()
APNS = json.load(open(os.path.join(OUT, "apns.json")))
APNS_PUBLIC = serialization.load_pem_private_key(open(os.path.join(OUT, "apns_key.p8"), "rb").read(), None).public_key()
ACCOUNT = json.load(open(os.path.join(OUT, "fcm_account.json")))
FCM_PUBLIC = serialization.load_pem_private_key(ACCOUNT["private_key"].encode(), None).public_key()

script_state = {"mtime": None, "queues": {}}
granted, revoked = set(), set()
lock = threading.Lock()


def next_answer(channel):
    path = os.path.join(OUT, "script.json")
    try:
        mtime = os.stat(path).st_mtime_ns
    except FileNotFoundError:
        mtime = None
    if mtime != script_state["mtime"]:
        script_state["mtime"] = mtime
        script_state["queues"] = json.load(open(path)) if mtime else {}
    queue = script_state["queues"].get(channel) or []
    return queue.pop(0) if queue else "ok"


def record(entry):
    with lock, open(os.path.join(OUT, "requests.jsonl"), "a") as f:
        f.write(json.dumps(entry) + "\n")


async def read_body(receive):
    body = b""
    while True:
        message = await receive()
        body += message.get("body", b"")
        if not message.get("more_body"):
            return body


async def answer(send, status, body=b"", headers=()):
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"application/json")] + list(headers)})
    await send({"type": "http.response.body", "body": body})


def apns(scope, headers, body, problems, entry):
    if scope.get("http_version") != "2":
        problems.append("APNs is HTTP/2 only, got HTTP/%s" % scope.get("http_version"))
    auth = headers.get("authorization", "")
    try:
        token = auth.split(" ", 1)[1] if auth.lower().startswith("bearer ") else ""
        header = jwt.get_unverified_header(token)
        claims = jwt.decode(token, APNS_PUBLIC, algorithms=["ES256"], options={"verify_aud": False, "require": ["iat", "iss"]})
        if header.get("kid") != APNS["key_id"]:
            problems.append("kid %r" % header.get("kid"))
        if claims.get("iss") != APNS["team_id"]:
            problems.append("iss %r" % claims.get("iss"))
        if abs(time.time() - claims["iat"]) > 3600:
            problems.append("iat too old")
        entry["jwt"] = token
    except Exception as e:
        problems.append("provider token: %s" % e)
        return 403, {"reason": "InvalidProviderToken"}
    for name, value in (("apns-topic", APNS["topic"]), ("apns-push-type", "alert")):
        if headers.get(name) != value:
            problems.append("%s %r" % (name, headers.get(name)))
    for name in ("apns-priority", "apns-expiration"):
        if not headers.get(name, "").isdigit():
            problems.append("%s %r" % (name, headers.get(name)))
    entry["collapse_id"] = headers.get("apns-collapse-id")
    if len(body) > 4096:
        problems.append("payload of %d bytes" % len(body))
    try:
        payload = json.loads(body)
        entry["payload"] = payload
        alert = payload["aps"]["alert"]
        if not alert.get("title") or "body" not in alert:
            problems.append("aps.alert without title and body")
    except Exception as e:
        problems.append("payload: %s" % e)
    reply = next_answer("apns")
    return {"ok": (200, None), "gone": (410, {"reason": "Unregistered", "timestamp": int(time.time() * 1000)}),
            "expired": (403, {"reason": "ExpiredProviderToken"}), "bad": (400, {"reason": "BadTopic"}),
            "badtoken": (400, {"reason": "BadDeviceToken"})}.get(reply, (reply, {"reason": "ServiceUnavailable"}))


def token_endpoint(headers, body, problems, entry):
    form = urllib.parse.parse_qs(body.decode())
    if form.get("grant_type") != ["urn:ietf:params:oauth:grant-type:jwt-bearer"]:
        problems.append("grant_type %r" % form.get("grant_type"))
    try:
        claims = jwt.decode(form["assertion"][0], FCM_PUBLIC, algorithms=["RS256"], audience=ACCOUNT["token_uri"])
        if claims.get("iss") != ACCOUNT["client_email"]:
            problems.append("iss %r" % claims.get("iss"))
        if claims.get("scope") != "https://www.googleapis.com/auth/firebase.messaging":
            problems.append("scope %r" % claims.get("scope"))
    except Exception as e:
        problems.append("assertion: %s" % e)
        return 400, {"error": "invalid_grant"}
    reply = next_answer("token")
    if reply != "ok":
        return reply if isinstance(reply, int) else 400, {"error": "invalid_grant"}
    token = "ya29.test-%s" % b64url(os.urandom(12))
    granted.add(token)
    entry["granted"] = token
    return 200, {"access_token": token, "expires_in": 3599, "token_type": "Bearer"}


def fcm(path, headers, body, problems, entry):
    token = headers.get("authorization", "")[len("Bearer "):]
    entry["access_token"] = token
    if path != "/v1/projects/%s/messages:send" % ACCOUNT["project_id"]:
        problems.append("path %s" % path)
    if token not in granted or token in revoked:
        return 401, {"error": {"code": 401, "status": "UNAUTHENTICATED"}}
    try:
        message = json.loads(body)["message"]
        entry["message"] = message
        if not all(isinstance(v, str) for v in message.get("data", {}).values()):
            problems.append("data values must be strings")
        if not message.get("notification", {}).get("title"):
            problems.append("no notification.title")
    except Exception as e:
        problems.append("message: %s" % e)
    reply = next_answer("fcm")
    if reply == "expired":
        revoked.add(token)
        return 401, {"error": {"code": 401, "status": "UNAUTHENTICATED"}}
    return {"ok": (200, {"name": "projects/%s/messages/1" % ACCOUNT["project_id"]}),
            "gone": (404, {"error": {"code": 404, "status": "NOT_FOUND", "details": [{"errorCode": "UNREGISTERED"}]}}),
            "bad": (400, {"error": {"code": 400, "status": "INVALID_ARGUMENT"}})}.get(reply, (reply, {"error": {"code": reply}}))


def webpush(path, headers, body, problems, entry):
    sub = path[len("/push/"):]
    auth = headers.get("authorization", "")
    try:
        parts = dict(p.strip().split("=", 1) for p in auth[len("vapid "):].split(","))
        public = ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), unb64url(parts["k"]))
        claims = jwt.decode(parts["t"], public, algorithms=["ES256"], audience=ORIGIN)
        if not claims.get("sub", "").startswith(("mailto:", "https:")):
            problems.append("sub %r" % claims.get("sub"))
        if not 0 < claims["exp"] - time.time() <= 86400:
            problems.append("exp not within 24 hours")
        entry["vapid_key"] = parts["k"]
    except Exception as e:
        problems.append("vapid: %s (%r)" % (e, auth[:60]))
        return 403, None
    for name, value in (("content-encoding", "aes128gcm"),):
        if headers.get(name) != value:
            problems.append("%s %r" % (name, headers.get(name)))
    if not headers.get("ttl", "").isdigit():
        problems.append("ttl %r" % headers.get("ttl"))
    entry["topic"], entry["urgency"] = headers.get("topic"), headers.get("urgency")
    try:
        key = serialization.load_pem_private_key(open(os.path.join(OUT, "subscriptions", sub + ".pem"), "rb").read(), None)
        secret = open(os.path.join(OUT, "subscriptions", sub + ".auth"), "rb").read()
        entry["message"] = json.loads(http_ece.decrypt(body, private_key=key, auth_secret=secret, version="aes128gcm"))
    except Exception as e:
        problems.append("decrypt: %r" % e)
    reply = next_answer("webpush")
    return {"ok": (201, None), "gone": (410, None), "bad": (400, None)}.get(reply, (reply, None))


async def app(scope, receive, send):
    if scope["type"] == "lifespan":
        while True:
            message = await receive()
            await send({"type": message["type"] + ".complete"})
            if message["type"] == "lifespan.shutdown":
                return
    headers = {k.decode().lower(): v.decode() for k, v in scope["headers"]}
    body = await read_body(receive)
    path = scope["path"]
    problems = []
    entry = {"path": path, "http_version": scope.get("http_version"), "headers": headers}
    if path.startswith("/3/device/"):
        entry["channel"] = "apns"
        status, reply = apns(scope, headers, body, problems, entry)
    elif path == "/token":
        entry["channel"] = "token"
        status, reply = token_endpoint(headers, body, problems, entry)
    elif path.startswith("/v1/projects/"):
        entry["channel"] = "fcm"
        status, reply = fcm(path, headers, body, problems, entry)
    elif path.startswith("/push/"):
        entry["channel"] = "webpush"
        status, reply = webpush(path, headers, body, problems, entry)
    else:
        entry["channel"] = "unknown"
        status, reply = 404, None
    entry["problems"], entry["status"] = problems, status
    record(entry)
    extra = [(b"retry-after", b"0")] if status == 429 else []
    await answer(send, status, json.dumps(reply).encode() if reply is not None else b"", extra)


config = Config()
config.bind = ["127.0.0.1:%d" % PORT, "[::1]:%d" % PORT]
config.certfile = config.keyfile = os.path.join(OUT, "server.pem")
config.alpn_protocols = ["h2", "http/1.1"]
config.loglevel = "WARNING"
# Hypercorn closes a connection after 1,000 requests by default, dropping the answers of
# requests in flight on it (the client then sends them again): Apple's service keeps its
# connections open, so this one does too.
config.keep_alive_max_requests = 1_000_000_000
config.accesslog = None
stop = asyncio.Event()


async def main():
    loop = asyncio.get_running_loop()
    loop.add_signal_handler(signal.SIGTERM, stop.set)
    await serve(app, config, shutdown_trigger=stop.wait)


asyncio.run(main())
