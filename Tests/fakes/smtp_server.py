#!/usr/bin/env python3
"""A real SMTP submission server for the tests (aiosmtpd, from PyPI).

STARTTLS with a certificate from a test authority (trustme), and AUTH PLAIN or
LOGIN required over TLS, user "sportlook", password "s3cret pass". Every accepted
message is saved to OUTDIR as NNNNN.eml, preceded by an "X-Envelope-To:" line.

Recipients steer the answers: a local part containing "+defer" is answered
451 (try later) on its first two tries, one containing "+reject" always 550.

Usage: smtp_server.py PORT OUTDIR [plain]
With "plain", the server offers neither STARTTLS nor AUTH (a relay that sends in clear).
The authority is kept in OUTDIR (ca.pem, ca.key) and reused when the server is
started again on the same OUTDIR, so that a client trusting ca.pem keeps trusting it.
"""
import itertools
import os
import signal
import ssl
import sys
import threading

import trustme
from aiosmtpd.controller import Controller
from aiosmtpd.smtp import AuthResult, LoginPassword

USER, PASSWORD = b"sportlook", b"s3cret pass"


class Handler:
    def __init__(self, outdir):
        self.outdir = outdir
        self.tries = {}
        existing = [int(n[:5]) for n in os.listdir(outdir) if n.endswith(".eml")]
        self.sequence = itertools.count(max(existing, default=-1) + 1)

    async def handle_RCPT(self, server, session, envelope, address, rcpt_options):
        local = address.split("@")[0]
        if "+reject" in local:
            return "550 5.1.1 no such mailbox here"
        if "+defer" in local:
            count = self.tries.get(address, 0)
            self.tries[address] = count + 1
            if count < 2:
                return "451 4.3.0 mailbox busy, try again later"
        envelope.rcpt_tos.append(address)
        return "250 2.1.5 OK"

    async def handle_DATA(self, server, session, envelope):
        path = os.path.join(self.outdir, "%05d.eml" % next(self.sequence))
        with open(path + ".tmp", "wb") as f:
            f.write(b"X-Envelope-To: " + ",".join(envelope.rcpt_tos).encode() + b"\r\n")
            f.write(envelope.original_content)
        os.rename(path + ".tmp", path)
        return "250 2.0.0 queued"


def authenticator(server, session, envelope, mechanism, auth_data):
    ok = isinstance(auth_data, LoginPassword) and auth_data.login == USER and auth_data.password == PASSWORD
    return AuthResult(success=ok)


def authority(outdir):
    cert, key = os.path.join(outdir, "ca.pem"), os.path.join(outdir, "ca.key")
    if os.path.exists(cert) and os.path.exists(key):
        with open(cert, "rb") as c, open(key, "rb") as k:
            return trustme.CA.from_pem(c.read(), k.read())
    ca = trustme.CA()
    ca.private_key_pem.write_to_path(key)
    ca.cert_pem.write_to_path(cert + ".tmp")
    os.rename(cert + ".tmp", cert)
    return ca


def main():
    port, outdir = int(sys.argv[1]), sys.argv[2]
    plain = sys.argv[3:] == ["plain"]
    os.makedirs(outdir, exist_ok=True)
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    authority(outdir).issue_cert("localhost", "127.0.0.1").configure_cert(context)
    if plain:
        controller = Controller(Handler(outdir), hostname="127.0.0.1", port=port)
    else:
        controller = Controller(
            Handler(outdir), hostname="127.0.0.1", port=port, tls_context=context, require_starttls=True,
            auth_required=True, auth_require_tls=True, authenticator=authenticator,
        )
    controller.start()
    print("ready", flush=True)
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    signal.signal(signal.SIGINT, lambda *_: stop.set())
    stop.wait()
    controller.stop()


if __name__ == "__main__":
    main()
