"""Schemathesis hooks: authenticate with accounts the fuzz run registers.

The fuzzer calls logout and revokes sessions with the token it is given, so a
fixed token dies early; and it sends wrong passwords to /login from this same
address, which the login throttle answers with 429. So this provider registers
a fresh account every second instead of logging in.
"""
import json
import os
import urllib.request
import uuid

import schemathesis


@schemathesis.auth(refresh_interval=1)
class FuzzAccount:
    def get(self, case, ctx):
        base = os.environ["SPORTLOOK_FUZZ_URL"]
        email = f"fuzzer-{uuid.uuid4().hex}@example.com"
        body = json.dumps({"name": "Fuzzer", "email": email, "password": "schemathesis fuzzer"}).encode()
        request = urllib.request.Request(base + "/v1/auth/register", data=body, headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(request, timeout=10) as response:
            return json.load(response)["access_token"]

    def set(self, case, data, ctx):
        case.headers = case.headers or {}
        staff = os.environ.get("SPORTLOOK_FUZZ_STAFF_TOKEN")
        token = staff if staff and case.path.startswith("/v1/staff") else data
        case.headers["Authorization"] = f"Bearer {token}"
