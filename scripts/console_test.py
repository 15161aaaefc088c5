#!/usr/bin/env python3
"""The moderation console in a real browser: Debian's Chromium driven by Playwright
against a fresh `sportlook serve` (SQLite; only loopback).

Rita reports Sam's message, a photo he sent and Sam's event from the web client. Mo, a
moderator, sees them in the console with their context, takes the photo down (it leaves
Rita's open chat), removes the message and suspends Sam for a day from his
account page: Sam's open page loses its socket (closed as a session that ended) and his
next request is refused with 403 `account_suspended`. Mo dismisses the event's report.
Rita's inbox tells her both outcomes. Sam, refused at sign-in, appeals from the sign-in
screen; Mo, who suspended him, cannot decide the appeal; Ada, an admin, reverses it, and
Sam signs in again and reads what was done and decided. The audit log shows every step;
someone who is not staff gets 404 for the console. The abuse panel counts the walk's
sign-ups and a wrong password per network; Ada blocks an email domain from registering and
lifts it again. Rita downloads a copy of her data. Every console screen is checked with
axe-core (no serious or critical violation) and photographed at 390x844 and 1280x800.

Usage: scripts/console_test.py BINARY SCREENSHOT_FOLDER
"""
import json
import re
import os
import sqlite3
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request

from playwright.sync_api import expect, sync_playwright

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import web_test  # noqa: E402  (its browser helpers; it reads the same two arguments)
from web_test import CHROMIUM, PASSWORD, audit, free_port, problems, shoot  # noqa: E402

BINARY = sys.argv[1]


class Console:
    """A server of its own, and the people of the walk."""

    def __init__(self, folder):
        self.folder = folder
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.env = dict(os.environ, DATABASE_URL=f"sqlite:{folder}/console.sqlite", PORT=str(self.port), BCRYPT_COST="4",
                        TILE_URL="none", MAIL_TRANSPORT="log", LOG_LEVEL="error", RATE_LIMIT_USER="0", RATE_LIMIT_GLOBAL="0",
                        OVERLOAD_LAG="0", DATABASE_WRITE_WAIT="0", REGISTER_MAX_PER_ADDRESS="0", JOB_POLL_INTERVAL="200ms")
        self.log = open(f"{folder}/serve.log", "ab")
        self.process = subprocess.Popen([BINARY, "serve"], env=self.env, stdout=self.log, stderr=self.log)
        for _ in range(300):
            try:
                with urllib.request.urlopen(self.url + "/ready", timeout=1) as r:
                    if r.status == 200:
                        return
            except OSError:
                time.sleep(0.1)
        raise SystemExit("the server did not become ready")

    def stop(self):
        self.process.terminate()
        self.process.wait(timeout=30)

    def call(self, method, path, token=None, body=None):
        headers = {"Content-Type": "application/json"}
        if token:
            headers["Authorization"] = f"Bearer {token}"
        request = urllib.request.Request(self.url + path, method=method, data=None if body is None else json.dumps(body).encode(), headers=headers)
        try:
            with urllib.request.urlopen(request, timeout=10) as response:
                return response.status, json.loads(response.read() or b"null")
        except urllib.error.HTTPError as error:
            return error.code, json.loads(error.read() or b"null")

    def upload(self, token, use, image):
        """A PNG uploaded as the raw body (POST /v1/media?use=…); the upload's id."""
        request = urllib.request.Request(self.url + f"/v1/media?use={use}", method="POST", data=image,
                                         headers={"Content-Type": "image/png", "Authorization": f"Bearer {token}"})
        with urllib.request.urlopen(request, timeout=30) as response:
            return json.loads(response.read())["id"]

    def register(self, name, email):
        status, body = self.call("POST", "/v1/auth/register", body={"name": name, "email": email, "password": PASSWORD})
        assert status == 201, (status, body)
        return body["access_token"], body["user"]["id"]

    def make_staff(self, email, role):
        """As an operator does: the email verified (as a mailed code would), then the command line."""
        with sqlite3.connect(f"{self.folder}/console.sqlite") as db:
            db.execute("UPDATE users SET email_verified = 1 WHERE email = ?", (email,))
        subprocess.run([BINARY, "staff", "grant", email, role, "--reason", "runs the console test"], env=self.env, check=True,
                       stdout=subprocess.DEVNULL)

    def browser_of(self, browser, name, token):
        """A browser signed in with `token` as its session cookie."""
        context = browser.new_context(base_url=self.url, viewport={"width": 390, "height": 844}, locale="en-GB")
        context.add_cookies([{"name": "sportlook_session", "value": token, "url": self.url}])
        context.add_init_script("localStorage.setItem('sportlook.signedIn', '1')")
        page = context.new_page()
        page.on("pageerror", lambda error: problems.append(f"{name}: page error: {error}"))
        page.on("console", lambda m: problems.append(f"{name}: {m.text}") if "Content Security Policy" in m.text or "Refused to" in m.text else None)
        page.on("dialog", lambda d: d.accept())
        return page


def screen(page, name):
    audit(page, name)
    shoot(page, name)


def main():
    os.makedirs(web_test.SHOTS, exist_ok=True)
    with tempfile.TemporaryDirectory() as folder:
        console = Console(folder)
        try:
            walk(console)
        except BaseException:
            console.log.flush()
            with open(f"{folder}/serve.log", "rb") as log:
                print("the server's log, last 60 lines:\n" + b"".join(log.readlines()[-60:]).decode(errors="replace"), file=sys.stderr)
            raise
        finally:
            console.stop()
    if problems:
        print("\n".join(problems))
        raise SystemExit(f"{len(problems)} problem(s)")
    print("console test passed")


def walk(console):
    ada_token, _ = console.register("Ada", "ada@console.test")
    mo_token, _ = console.register("Mo", "mo@console.test")
    console.make_staff("ada@console.test", "admin")
    console.make_staff("mo@console.test", "moderator")
    sam_token, sam_id = console.register("Sam", "sam@console.test")
    rita_token, _ = console.register("Rita", "rita@console.test")
    starts = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(time.time() + 2 * 86_400))
    status, event = console.call("POST", "/v1/events", sam_token, {"title": "Sunday five-a-side", "sport": "football", "starts_at": starts,
                                                                   "location": {"lat": 48.8566, "lon": 2.3522}})
    assert status == 201, event
    assert console.call("POST", f"/v1/events/{event['id']}/attendance", rita_token)[0] == 200
    for n, text in enumerate(["Who brings the ball?", "You are all useless, stay home", "See you at ten"]):
        assert console.call("POST", f"/v1/events/{event['id']}/messages", sam_token, {"body": text, "client_id": f"c-{n}"})[0] == 201
    photo = console.upload(sam_token, "chat", web_test.png(640, 480))
    assert console.call("POST", f"/v1/events/{event['id']}/messages", sam_token, {"body": "Our pitch", "client_id": "c-photo", "attachment_id": photo})[0] == 201

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox", "--disable-background-networking", "--disable-component-update"])

        # Someone who is not staff finds no console.
        rita = console.browser_of(browser, "Rita", rita_token)
        refused = rita.goto("/admin")
        if refused.status != 404:
            problems.append(f"/admin answered {refused.status} to someone who is not staff")

        # Rita reports Sam's message and his event from the web client.
        rita.goto(f"/#/events/{event['id']}")
        expect(rita.get_by_text("You are all useless, stay home")).to_be_visible()
        rita.get_by_label("Report Sam’s message “You are all useless, stay home”", exact=True).click()
        rita.get_by_role("button", name="Report Sam’s message “You are all useless, stay home”: Harassment").click()
        expect(rita.get_by_text("Reported: a moderator will look.")).to_be_visible()
        rita.get_by_label("Report the event Sunday five-a-side", exact=True).click()
        rita.get_by_role("button", name="Report the event Sunday five-a-side: Something else").click()
        expect(rita.get_by_text("Reported: a moderator will look.")).to_have_count(2)

        # And the photo Sam sent, from its own control beside the message's.
        rita.get_by_label("Report the image in Sam’s message “Our pitch”", exact=True).click()
        rita.get_by_role("button", name="Report the image in Sam’s message “Our pitch”: Inappropriate").click()
        expect(rita.get_by_text("Reported: a moderator will look.")).to_have_count(3)

        # Sam has the game open: his page holds a socket.
        sam = console.browser_of(browser, "Sam", sam_token)
        closes = []
        sam.on("websocket", lambda ws: ws.on("close", lambda _: closes.append(time.time())))
        sam.goto(f"/#/events/{event['id']}")
        expect(sam.get_by_text("See you at ten")).to_be_visible()

        # Mo sees both reports in context.
        mo = console.browser_of(browser, "Mo", mo_token)
        mo.goto("/admin")
        expect(mo.get_by_role("heading", name="Reports")).to_be_visible()
        message_report = mo.locator("article.report-group").filter(has_text="You are all useless")
        expect(message_report.locator("li.reported")).to_contain_text("You are all useless, stay home")
        expect(message_report).to_contain_text("Who brings the ball?")
        expect(message_report).to_contain_text("Rita: harassment")
        event_report = mo.locator("article.report-group").filter(has_text="organised by")
        expect(event_report).to_contain_text("Sunday five-a-side")
        screen(mo, "console-reports")

        # He takes the photo down: it is shown to him with where it was, and leaves Rita's page.
        photo_report = mo.locator("article.report-group").filter(has_text="Shown as an image in a chat message")
        expect(photo_report.locator("figure.photo img")).to_be_visible()
        mo.wait_for_function("(img) => img.complete && img.naturalWidth > 0", arg=photo_report.locator("figure.photo img").element_handle())
        photo_report.get_by_label("Reason (kept in the audit log and told to the person)").fill("Not a photo for this chat")
        photo_report.get_by_role("button", name="Take the photo down (photo reported)").click()
        expect(mo.get_by_text("Done: 1 report closed.")).to_be_visible()
        expect(rita.locator("ol.messages").get_by_text("Our pitch")).to_be_visible()
        expect(rita.locator("ol.messages img.attachment")).to_have_count(0, timeout=10_000)
        mo.goto("/admin#/")
        expect(mo.get_by_role("heading", name="Reports")).to_be_visible()
        message_report = mo.locator("article.report-group").filter(has_text="You are all useless")

        # He removes the message.
        message_report.get_by_label("Reason (kept in the audit log and told to the person)").fill("Insults other players")
        message_report.get_by_role("button", name="Remove the message (message reported)").click()
        expect(mo.get_by_text("Done: 1 report closed.")).to_be_visible()
        expect(rita.locator("ol.messages").get_by_text("Message deleted")).to_be_visible()

        # He suspends Sam for a day from his account page.
        mo.locator("article.report-group").filter(has_text="organised by").get_by_role("link", name="Sam").first.click()
        expect(mo.get_by_role("heading", name="Sam")).to_be_visible()
        expect(mo.get_by_text("In good standing")).to_be_visible()
        screen(mo, "console-account")
        mo.get_by_label("Reason (kept in the audit log and told to the person)").fill("Insults other players")
        mo.get_by_label("Days (empty: for good)").fill("1")
        mo.get_by_role("button", name="Suspend", exact=True).click()
        expect(mo.get_by_text("Done: Suspended.")).to_be_visible()
        expect(mo.get_by_text("Suspended until")).to_be_visible()

        # Sam's socket closes as a session that ended, and his next request is refused.
        expect(sam.get_by_role("heading", name="Sign in")).to_be_visible(timeout=10_000)
        if not closes:
            problems.append("Sam's socket stayed open after his suspension")
        status, body = console.call("GET", "/v1/me", sam_token)
        if status != 403 or body["error"]["code"] != "account_suspended":
            problems.append(f"Sam's next request answered {status} {body}")

        # Mo dismisses the event's report; the queue is empty.
        mo.goto("/admin#/")
        event_report = mo.locator("article.report-group").filter(has_text="organised by")
        event_report.get_by_label("Reason (kept in the audit log and told to the person)").fill("A rough game is not against the rules")
        event_report.get_by_role("button", name="Dismiss (event reported)").click()
        expect(mo.get_by_text("No open reports.")).to_be_visible()

        # Rita is told each outcome (the photo and the message acted on, the event not).
        rita.goto("/#/inbox")
        expect(rita.get_by_text("Thank you: the moderators acted on what you reported.")).to_have_count(2, timeout=10_000)
        expect(rita.get_by_text("Thank you: the moderators looked at what you reported and found nothing against the rules.")).to_be_visible(timeout=10_000)

        # Sam is refused at sign-in, and appeals from there.
        sam.get_by_label("Email").fill("sam@console.test")
        sam.get_by_label("Password").fill(PASSWORD)
        sam.get_by_role("button", name="Sign in", exact=True).click()
        expect(sam.get_by_text("This account is suspended until")).to_be_visible()
        sam.get_by_label("Your appeal").fill("I was angry after the last game. It will not happen again.")
        sam.get_by_role("button", name="Send appeal").click()
        expect(sam.get_by_text("Your appeal was sent. You will be told the decision.")).to_be_visible()

        # Mo, who suspended him, cannot decide it; Ada reverses it.
        mo.goto("/admin#/appeals")
        appeal = mo.locator("article.appeal-case")
        expect(appeal).to_contain_text("I was angry after the last game.")
        appeal.get_by_label("Reason (told to the person)").fill("Fine by me")
        appeal.get_by_role("button", name="Reverse").click()
        expect(appeal.get_by_text("Another member of staff decides the appeal of your own action.")).to_be_visible()
        ada = console.browser_of(browser, "Ada", ada_token)
        ada.goto("/admin#/appeals")
        appeal = ada.locator("article.appeal-case")
        expect(appeal).to_contain_text("Suspended")
        screen(ada, "console-appeals")
        appeal.get_by_label("Reason (told to the person)").fill("First offence; he apologised")
        appeal.get_by_role("button", name="Reverse").click()
        expect(ada.get_by_text("No open appeals.")).to_be_visible()

        # Sam signs in again and reads what was done and decided.
        sam.get_by_role("button", name="Sign in", exact=True).click()
        expect(sam.get_by_role("link", name="Inbox")).to_be_visible()
        sam.goto("/#/inbox")
        expect(sam.get_by_text("Another moderator looked again and reversed the decision: First offence; he apologised")).to_be_visible(timeout=10_000)
        expect(sam.get_by_text(re.compile(r"^Your account is suspended until .* \(UTC\): Insults other players$"))).to_be_visible()
        expect(sam.get_by_text(re.compile(r"^Your (message|game .*) was (removed|cancelled): Insults other players$"))).to_be_visible()

        # The audit log shows every step, newest first.
        ada.goto("/admin#/audit")
        rows = ada.locator("table.audit tbody tr")
        expect(rows).to_have_count(8)
        actions = [row.locator("td").nth(2).inner_text() for row in rows.all()]
        expected = ["Appeal reversed", "Appeal filed", "Reports dismissed", "Suspended", "Message removed", "Photo taken down", "Role given",
                    "Role given"]
        if actions != expected:
            problems.append(f"the audit log reads {actions}, not {expected}")
        screen(ada, "console-audit")
        ada.get_by_label("Action").select_option("user_suspended")
        ada.get_by_role("button", name="Filter").click()
        expect(rows).to_have_count(1)

        # The staff, for admins; a moderator is told it is not for them.
        ada.goto("/admin#/staff")
        expect(ada.get_by_text("mo@console.test · moderator")).to_be_visible()
        screen(ada, "console-staff")
        mo.goto("/admin#/staff")
        expect(mo.get_by_text("Only admins see and manage the staff.")).to_be_visible()

        # Finding an account, and the job queue (admins).
        ada.goto("/admin#/accounts")
        ada.get_by_label("Id, email or name").fill("sam@console.test")
        ada.get_by_role("button", name="Find").click()
        expect(ada.get_by_text("1 found.")).to_be_visible()
        screen(ada, "console-accounts")
        ada.get_by_role("link", name="Sam").click()
        expect(ada.get_by_text(re.compile(r"^1 organised, \d+ joined$"))).to_be_visible()
        expect(ada.get_by_text(re.compile(r"^127\.0\.0\.0\/24 \("))).to_be_visible()
        expect(ada.get_by_text("No game counted yet")).to_be_visible()
        ada.goto("/admin#/jobs")
        expect(ada.get_by_role("heading", name="Dead jobs")).to_be_visible()
        screen(ada, "console-jobs")

        # The abuse panel: the walk's sign-ups from this machine's network, and a wrong
        # password; Ada blocks an email domain (a sign-up with it is refused), then lifts it.
        assert console.call("POST", "/v1/auth/login", body={"email": "rita@console.test", "password": "not her password"})[0] == 401
        ada.goto("/admin#/abuse")
        networks = ada.get_by_role("table", name="Registrations and failed sign-ins per network (last hour)")
        expect(networks.get_by_role("row", name=re.compile(r"^127\.0\.0\.0\/24 \d+ 1$"))).to_be_visible()
        ada.get_by_label("Kind").select_option("email_domain")
        ada.get_by_label("Range or domain").fill("spam.test")
        ada.get_by_label("Reason (kept in the audit log)").fill("Sign-ups from a throwaway mail service")
        ada.get_by_role("button", name="Block", exact=True).click()
        expect(ada.get_by_text("Blocked spam.test.")).to_be_visible()
        expect(ada.locator("ul.blocks")).to_contain_text("spam.test")
        screen(ada, "console-abuse")
        status, body = console.call("POST", "/v1/auth/register", body={"name": "Spammer", "email": "x@spam.test", "password": PASSWORD})
        if status != 403 or body["error"]["code"] != "registration_blocked":
            problems.append(f"a sign-up with a blocked domain answered {status} {body}")
        ada.get_by_label("Reason to lift a block (kept in the audit log)").fill("Blocked by mistake")
        ada.get_by_role("button", name="Lift the block on spam.test").click()
        expect(ada.get_by_text("Lifted the block on spam.test.")).to_be_visible()
        expect(ada.get_by_text("Nothing is blocked.")).to_be_visible()
        if console.call("POST", "/v1/auth/register", body={"name": "Welcome", "email": "y@spam.test", "password": PASSWORD})[0] != 201:
            problems.append("a sign-up with a lifted domain was still refused")

        # Rita asks for a copy of her data from her profile, and downloads it.
        rita.goto("/#/me")
        rita.get_by_role("button", name="Get a copy of my data").click()
        expect(rita.get_by_text("Asked: you will be told when it is ready.")).to_be_visible()
        link = rita.get_by_role("link", name=re.compile("^Download \\(until"))
        for _ in range(50):
            rita.goto("/#/inbox")
            rita.goto("/#/me")
            if link.count():
                break
            time.sleep(0.2)
        expect(link).to_be_visible()
        archive = rita.request.get(link.get_attribute("href"))
        if archive.status != 200 or archive.headers.get("content-type") != "application/zip" or archive.body()[:2] != b"PK":
            problems.append(f"Rita's data export answered {archive.status} {archive.headers.get('content-type')}")
        browser.close()


if __name__ == "__main__":
    main()
