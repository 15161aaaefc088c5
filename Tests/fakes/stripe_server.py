#!/usr/bin/env python3
"""The parts of Stripe's API that SportLook uses, on a loopback port, checking each
request as Stripe documents it — never the real service.

  POST /v1/accounts                 an Express connected account (type=express)
  GET  /v1/accounts/{id}
  POST /v1/account_links            account_onboarding links (account, refresh_url, return_url, type)
  POST /v1/checkout/sessions        on a connected account (Stripe-Account header): mode=payment,
                                    one line item with price_data (currency, unit_amount,
                                    product_data[name]) and quantity, success_url, metadata
  POST /v1/refunds                  on a connected account: payment_intent, amount, metadata

Every API request needs `Authorization: Bearer <secret key>` (401 otherwise) and POSTs a
form body (`application/x-www-form-urlencoded`); an `Idempotency-Key` sent again with the
same parameters gets the first answer, with other parameters a 400 `idempotency_error`.
Errors are Stripe's shape: `{"error": {"type", "code"?, "message", "param"?}}`.

Pages a browser visits: /onboard/{account} (finishes onboarding: charges enabled, then back
to return_url) and /pay/{session} (a Pay button; paying completes the session and goes to
success_url). Each change makes an event (`account.updated`, `checkout.session.completed`,
`refund.created` while pending, `refund.updated` once it succeeded, `charge.refunded`) signed as Stripe signs webhooks
(`Stripe-Signature: t=<unix time>,v1=<hex HMAC-SHA256 of "t.payload" with the webhook secret>`),
kept in an outbox (GET /_test/events) and, when a webhook URL is set, POSTed to it.
POST /_test/pay/{session} pays, and POST /_test/onboard/{account} finishes onboarding,
without a browser; POST /_test/session/{account}?event_id=&user_id=&amount= makes a session
as someone other than the server would.

Usage: stripe_server.py PORT SECRET_KEY WEBHOOK_SECRET READY_FILE [WEBHOOK_URL]
"""
import hashlib
import hmac
import html
import http.server
import json
import re
import secrets
import sys
import threading
import time
import urllib.parse
import urllib.request

PORT, SECRET_KEY, WEBHOOK_SECRET, READY = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4]
WEBHOOK_URL = sys.argv[5] if len(sys.argv) > 5 else None
BASE = f"http://127.0.0.1:{PORT}"
CURRENCIES = {"aud", "bgn", "brl", "cad", "chf", "cny", "czk", "dkk", "eur", "gbp", "hkd", "huf", "inr", "isk", "jpy", "krw", "mxn",
              "nok", "nzd", "pln", "ron", "sek", "sgd", "usd", "zar"}
lock = threading.Lock()
accounts, sessions, intents, refunds, idempotent, outbox = {}, {}, {}, {}, {}, []


class StripeError(Exception):
    def __init__(self, status, message, param=None, kind="invalid_request_error", code=None):
        super().__init__(message)
        self.status, self.body = status, {"error": {k: v for k, v in
                                                    {"type": kind, "message": message, "param": param, "code": code}.items() if v}}


def ident(prefix):
    return f"{prefix}_test_{secrets.token_hex(12)}"


def parse_form(body):
    """Stripe's form encoding: a[b][c]=v nests; every value is text."""
    params = {}
    for key, value in urllib.parse.parse_qsl(body, keep_blank_values=True, strict_parsing=False):
        parts = re.findall(r"[^\[\]]+", key)
        if not parts or key.count("[") != key.count("]"):
            raise StripeError(400, f"Invalid parameter name {key}", key)
        node = params
        for part in parts[:-1]:
            node = node.setdefault(part, {})
            if not isinstance(node, dict):
                raise StripeError(400, f"Invalid nesting for {key}", key)
        if parts[-1] in node:
            raise StripeError(400, f"Parameter {key} given twice", key)
        node[parts[-1]] = value
    return params


def require(params, name):
    value = params.get(name)
    if value is None or value == "":
        raise StripeError(400, f"Missing required param: {name}.", name, code="parameter_missing")
    return value


def integer(params, name, minimum=1):
    text = require(params, name)
    if not re.fullmatch(r"-?[0-9]+", text) or int(text) < minimum:
        raise StripeError(400, f"Invalid integer: {text}", name)
    return int(text)


def url(params, name, required=True):
    value = params.get(name)
    if value is None and not required:
        return None
    value = require(params, name)
    parsed = urllib.parse.urlparse(value)
    if parsed.scheme not in ("http", "https") or not parsed.netloc:
        raise StripeError(400, f"Not a valid URL", name, code="url_invalid")
    return value


def metadata(params):
    meta = params.get("metadata", {})
    if not isinstance(meta, dict) or len(meta) > 50:
        raise StripeError(400, "Metadata may have at most 50 keys.", "metadata")
    for key, value in meta.items():
        if len(key) > 40 or len(value) > 500:
            raise StripeError(400, "Metadata keys are at most 40 characters and values at most 500.", f"metadata[{key}]")
    return meta


def event(kind, obj, account=None):
    """Records an event in the outbox and, with a webhook URL, delivers it signed."""
    payload = json.dumps({"id": ident("evt"), "object": "event", "api_version": "2024-06-20", "created": int(time.time()),
                          "type": kind, "account": account, "livemode": False, "data": {"object": obj}})
    signed = sign(payload)
    with lock:
        outbox.append({"payload": payload, "signature": signed, "type": kind})
    if WEBHOOK_URL:
        threading.Thread(target=deliver, args=(payload, signed), daemon=True).start()


def sign(payload, at=None):
    stamp = int(time.time()) if at is None else at
    digest = hmac.new(WEBHOOK_SECRET.encode(), f"{stamp}.{payload}".encode(), hashlib.sha256).hexdigest()
    return f"t={stamp},v1={digest}"


def deliver(payload, signature):
    request = urllib.request.Request(WEBHOOK_URL, data=payload.encode(), method="POST",
                                     headers={"Content-Type": "application/json; charset=utf-8", "Stripe-Signature": signature})
    try:
        urllib.request.urlopen(request, timeout=10).read()
    except Exception as error:  # the outbox keeps it; a test may deliver it again
        print(f"webhook delivery failed: {error}", flush=True)


def create_account(params, _account):
    if require(params, "type") != "express":
        raise StripeError(400, "Only express accounts are used here.", "type")
    account = {"id": ident("acct"), "object": "account", "type": "express", "email": params.get("email"),
               "charges_enabled": False, "details_submitted": False, "metadata": metadata(params)}
    accounts[account["id"]] = account
    return account


def account_link(params, _account):
    account = require(params, "account")
    if account not in accounts:
        raise StripeError(400, f"No such account: '{account}'", "account", code="resource_missing")
    if require(params, "type") not in ("account_onboarding", "account_update"):
        raise StripeError(400, "Invalid type", "type")
    refresh, back = url(params, "refresh_url"), url(params, "return_url")
    link = {"object": "account_link", "created": int(time.time()), "expires_at": int(time.time()) + 300,
            "url": f"{BASE}/onboard/{account}?" + urllib.parse.urlencode({"return_url": back, "refresh_url": refresh})}
    return link


def checkout(params, account):
    if account is None:
        raise StripeError(400, "Checkout Sessions here are made on a connected account (Stripe-Account header).")
    if require(params, "mode") != "payment":
        raise StripeError(400, "Invalid mode", "mode")
    items = params.get("line_items")
    if not isinstance(items, dict) or list(items) != ["0"]:
        raise StripeError(400, "line_items must be one item", "line_items")
    item = items["0"]
    price = item.get("price_data")
    if not isinstance(price, dict) or not isinstance(price.get("product_data"), dict):
        raise StripeError(400, "line_items[0][price_data] with product_data is required", "line_items[0][price_data]")
    currency = require(price, "currency")
    if currency not in CURRENCIES:
        raise StripeError(400, f"Invalid currency: {currency}. Stripe currencies are lowercase ISO codes.", "line_items[0][price_data][currency]")
    amount = integer(price, "unit_amount")
    name = require(price["product_data"], "name")
    if len(name) > 250:
        raise StripeError(400, "The product's name is at most 250 characters.", "line_items[0][price_data][product_data][name]")
    quantity = integer(item, "quantity")
    success, cancel = url(params, "success_url"), url(params, "cancel_url", required=False)
    session = {"id": ident("cs"), "object": "checkout.session", "mode": "payment", "status": "open", "payment_status": "unpaid",
               "amount_total": amount * quantity, "currency": currency, "success_url": success, "cancel_url": cancel,
               "client_reference_id": params.get("client_reference_id"), "metadata": metadata(params), "payment_intent": None,
               "account": account}
    session["url"] = f"{BASE}/pay/{session['id']}"
    sessions[session["id"]] = session
    return public(session)


def public(session):
    return {k: v for k, v in session.items() if k != "account"}


def pay(session_id):
    with lock:
        session = sessions.get(session_id)
        if not session or session["status"] != "open":
            return None
        intent = ident("pi")
        intents[intent] = {"id": intent, "amount": session["amount_total"], "refunded": 0, "account": session["account"]}
        session.update(status="complete", payment_status="paid", payment_intent=intent)
    event("checkout.session.completed", public(session), session["account"])
    return session


def refund(params, account):
    if account is None:
        raise StripeError(400, "Refunds here are made on a connected account (Stripe-Account header).")
    intent = intents.get(require(params, "payment_intent"))
    if not intent or intent["account"] != account:
        raise StripeError(400, "No such payment_intent", "payment_intent", code="resource_missing")
    amount = integer(params, "amount") if "amount" in params else intent["amount"] - intent["refunded"]
    if amount > intent["amount"] - intent["refunded"]:
        raise StripeError(400, "Refund amount is greater than the unrefunded amount.", "amount", code="amount_too_large")
    intent["refunded"] += amount
    result = {"id": ident("re"), "object": "refund", "amount": amount, "payment_intent": intent["id"], "status": "pending",
              "metadata": metadata(params), "currency": next(s["currency"] for s in sessions.values() if s["payment_intent"] == intent["id"])}
    refunds[result["id"]] = result
    made = dict(result, status="succeeded")
    # As Stripe does: the refund made (pending), then its update once it went through, and the charge's event.
    threading.Thread(target=lambda: (event("refund.created", dict(result), account), event("refund.updated", made, account),
                                     event("charge.refunded", {"id": ident("ch"), "object": "charge", "payment_intent": intent["id"],
                                                               "amount_refunded": intent["refunded"]}, account)), daemon=True).start()
    return result


API = {("POST", "/v1/accounts"): create_account, ("POST", "/v1/account_links"): account_link,
       ("POST", "/v1/checkout/sessions"): checkout, ("POST", "/v1/refunds"): refund}


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def answer(self, status, body, content_type="application/json", headers=()):
        data = body if isinstance(body, bytes) else (json.dumps(body) if content_type == "application/json" else body).encode()
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(data)))
        for name, value in headers:
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(data)

    def body(self):
        return self.rfile.read(int(self.headers.get("Content-Length") or 0)).decode()

    def api(self, method):
        path = urllib.parse.urlparse(self.path).path
        if self.headers.get("Authorization") != f"Bearer {SECRET_KEY}":
            raise StripeError(401, "Invalid API Key provided.", kind="invalid_request_error")
        account = self.headers.get("Stripe-Account")
        if account is not None and account not in accounts:
            raise StripeError(403, "The provided key does not have access to account", code="account_invalid")
        if method == "GET":
            match = re.fullmatch(r"/v1/accounts/(acct_[A-Za-z0-9_]+)", path)
            if not match or match.group(1) not in accounts:
                raise StripeError(404, "No such account", code="resource_missing")
            return accounts[match.group(1)]
        handler = API.get((method, path))
        if not handler:
            raise StripeError(404, f"Unrecognized request URL (POST: {path}).")
        if not (self.headers.get("Content-Type") or "").startswith("application/x-www-form-urlencoded"):
            raise StripeError(400, "Stripe takes form-encoded bodies (application/x-www-form-urlencoded).")
        raw = self.body()
        params = parse_form(raw)
        key = self.headers.get("Idempotency-Key")
        if key is not None:
            if len(key) > 255:
                raise StripeError(400, "Idempotency keys are at most 255 characters.")
            with lock:
                seen = idempotent.get((account, key))
            if seen:
                if seen[0] != (path, raw):
                    raise StripeError(400, "Keys for idempotent requests can only be used with the same parameters they were first used with.",
                                      kind="idempotency_error")
                return seen[1]
        with lock:
            result = handler(params, account)
            if key is not None:
                idempotent[(account, key)] = ((path, raw), result)
        return result

    def do_GET(self):
        parsed = urllib.parse.urlparse(self.path)
        if parsed.path.startswith("/v1/"):
            return self.guarded("GET")
        if parsed.path == "/_test/events":
            with lock:
                return self.answer(200, list(outbox))
        match = re.fullmatch(r"/onboard/(acct_[A-Za-z0-9_]+)", parsed.path)
        if match and match.group(1) in accounts:
            query = dict(urllib.parse.parse_qsl(parsed.query))
            with lock:
                accounts[match.group(1)].update(charges_enabled=True, details_submitted=True)
            event("account.updated", accounts[match.group(1)], match.group(1))
            return self.answer(303, b"", headers=[("Location", query.get("return_url", "/"))])
        match = re.fullmatch(r"/pay/(cs_[A-Za-z0-9_]+)", parsed.path)
        session = sessions.get(match.group(1)) if match else None
        if session:
            digits = 0 if session["currency"] in ("isk", "jpy", "krw") else 2
            amount = f"{session['currency'].upper()} {session['amount_total'] / 10 ** digits:.{digits}f}"
            page = (f"<!doctype html><html lang=en><title>Pay</title><main><h1>Pay {html.escape(amount)}</h1>"
                    f"<form method=post><button>Pay {html.escape(amount)}</button></form></main></html>")
            return self.answer(200, page, "text/html; charset=utf-8")
        self.answer(404, {"error": {"type": "invalid_request_error", "message": "Not found"}})

    def do_POST(self):
        parsed = urllib.parse.urlparse(self.path)
        if parsed.path.startswith("/v1/"):
            return self.guarded("POST")
        match = re.fullmatch(r"/_test/session/(acct_[A-Za-z0-9_]+)", parsed.path)
        if match and match.group(1) in accounts:
            # A session made at Stripe by someone else than the server under test.
            self.body()
            query = dict(urllib.parse.parse_qsl(parsed.query))
            with lock:
                made = checkout({"mode": "payment", "success_url": "http://127.0.0.1/", "line_items": {"0": {"quantity": "1", "price_data": {
                    "currency": "dkk", "unit_amount": query["amount"], "product_data": {"name": "Elsewhere"}}}},
                    "metadata": {"event_id": query["event_id"], "user_id": query["user_id"]}}, match.group(1))
            return self.answer(200, made)
        match = re.fullmatch(r"/_test/onboard/(acct_[A-Za-z0-9_]+)", parsed.path)
        if match and match.group(1) in accounts:
            self.body()
            with lock:
                accounts[match.group(1)].update(charges_enabled=True, details_submitted=True)
            event("account.updated", accounts[match.group(1)], match.group(1))
            return self.answer(200, accounts[match.group(1)])
        match = re.fullmatch(r"/(_test/)?pay/(cs_[A-Za-z0-9_]+)", parsed.path)
        if match:
            self.body()
            session = pay(match.group(2))
            if not session:
                return self.answer(409, {"error": {"type": "invalid_request_error", "message": "This session is not open."}})
            if match.group(1):
                return self.answer(200, public(session))
            back = session["success_url"].replace("{CHECKOUT_SESSION_ID}", session["id"])
            return self.answer(303, b"", headers=[("Location", back)])
        self.answer(404, {"error": {"type": "invalid_request_error", "message": "Not found"}})

    def guarded(self, method):
        try:
            self.answer(200, self.api(method))
        except StripeError as error:
            self.answer(error.status, error.body)


server = http.server.ThreadingHTTPServer(("127.0.0.1", PORT), Handler)
with open(READY, "w") as ready:
    ready.write(BASE)
server.serve_forever()
