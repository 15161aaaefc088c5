"""Makes an upgrade fixture: a database filled by a given build of the server, and what
its clients read from it then.

For each engine (SQLite, and PostgreSQL on a throwaway cluster on loopback), a fresh
database is migrated and seeded by BINARY (`sportlook seed --demo`, small), then
`sportlook serve` is driven through the API only: people sign up, make games, join,
invite, chat in a game's room and in a conversation (an edit, a deletion, a reaction,
read markers, a mute), block someone. What each person then reads (themselves,
profiles, games, attendees, their games, chats, histories, invitations, notifications,
blocks, nearby games) is recorded with the database:

    OUT/sqlite.sqlite       the SQLite file
    OUT/postgres.sql        pg_dump of the PostgreSQL database (plain SQL, no owners)
    OUT/<engine>.json       {"made_at", "migration", "people": [{email, password, id}],
                             "reads": [{"as", "path", "body"}]}

`Tests/SportLookTests/UpgradeTests.swift` restores each, starts today's server on it
(which migrates it) with the clock at `made_at`, and checks that every read answers
everything it answered then. Only routes and fields that BINARY's version has are used.

Usage: python3 scripts/upgrade_fixture.py BINARY OUT
"""
import json
import os
import pathlib
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from loopback import free_port, wait_for

BINARY = os.path.abspath(sys.argv[1])
OUT = pathlib.Path(sys.argv[2])
PG_BIN = sorted(pathlib.Path("/usr/lib/postgresql").glob("*/bin"))[-1]
AS_POSTGRES = ["runuser", "-u", "postgres", "--"] if os.geteuid() == 0 else []
PASSWORD = "upgrade fixture password"
# Games start this long after the fixture is made, so they are upcoming when it is read.
DAY = 86_400


def call(base, method, path, token=None, body=None):
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(base + path, data=data, method=method)
    request.add_header("Content-Type", "application/json")
    if token:
        request.add_header("Authorization", "Bearer " + token)
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            text = response.read()
            return response.status, (json.loads(text) if text else None)
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode(errors="replace")


def ok(base, method, path, token=None, body=None):
    status, answer = call(base, method, path, token, body)
    if status >= 300:
        raise SystemExit(f"{method} {path} answered {status}: {answer}")
    return answer




def environment(database_url, folder, port):
    return dict(os.environ, DATABASE_URL=database_url, PORT=str(port), BCRYPT_COST="4", LOG_LEVEL="warning",
                REGISTER_MAX_PER_ADDRESS="0", RATE_LIMIT_USER="0", RATE_LIMIT_GLOBAL="0", CHAT_RATE_LIMIT="100000",
                MEDIA_STORE=f"file:{folder}/media", WEB_CLIENT="off")


def fill(base):
    """Drives the API as people would; returns (people, reads)."""
    people = []
    for n, name in enumerate(["Ada", "Bo", "Cleo", "Dev", "Eli", "Fay"]):
        email = f"{name.lower()}@upgrade.test"
        made = ok(base, "POST", "/v1/auth/register", body={"name": name, "email": email, "password": PASSWORD})
        people.append({"email": email, "password": PASSWORD, "id": made["user"]["id"], "token": made["access_token"], "name": name})
    ada, bo, cleo, dev, eli, fay = people
    ok(base, "PATCH", "/v1/me", ada["token"], {"bio": "Left back, Tuesdays"})
    starts = lambda days: time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(time.time() + days * DAY))
    games = []
    for days, title, sport, capacity, place in ((3, "Five-a-side at Fælled", "football", 10, (55.70, 12.57)),
                                                (5, "Padel doubles", "padel", 4, (55.68, 12.59)),
                                                (9, "Sunday run", "running", None, (55.67, 12.55))):
        body = {"title": title, "sport": sport, "starts_at": starts(days), "location": {"lat": place[0], "lon": place[1]},
                "description": f"{title}: bring water"}
        if capacity:
            body["capacity"] = capacity
        games.append(ok(base, "POST", "/v1/events", ada["token"] if days != 5 else cleo["token"], body))
    football, padel, run = (g["id"] for g in games)
    for person in (bo, cleo, dev, eli):
        ok(base, "POST", f"/v1/events/{football}/attendance", person["token"])
    for person in (ada, dev, eli, fay):  # padel holds 4 with Cleo: Fay waits
        ok(base, "POST", f"/v1/events/{padel}/attendance", person["token"])
    ok(base, "POST", f"/v1/events/{run}/attendance", fay["token"])
    ok(base, "POST", f"/v1/events/{run}/invitations", ada["token"], {"user_ids": [bo["id"], cleo["id"]]})
    # The game's room: messages from several, an edit, a deletion, a reaction, read markers.
    for n, person in enumerate((ada, bo, cleo, bo, dev, ada, eli)):
        ok(base, "POST", f"/v1/events/{football}/messages", person["token"], {"body": f"football message {n + 1} from {person['name']}",
                                                                              "client_id": f"f{n + 1}"})
    ok(base, "PATCH", f"/v1/rooms/{football}/messages/2", bo["token"], {"body": "football message 2 from Bo, edited"})
    ok(base, "DELETE", f"/v1/rooms/{football}/messages/4", bo["token"])
    ok(base, "POST", f"/v1/rooms/{football}/messages/1/reactions", cleo["token"], {"emoji": "👍"})
    ok(base, "POST", f"/v1/events/{football}/read", bo["token"], {"seq": 5})
    ok(base, "PUT", f"/v1/rooms/{football}/mute", dev["token"], {})
    # A conversation between two who share a game, and a block.
    conversation = ok(base, "POST", "/v1/conversations", ada["token"], {"user_id": bo["id"]})["id"]
    for n, person in enumerate((ada, bo, ada)):
        ok(base, "POST", f"/v1/rooms/{conversation}/messages", person["token"], {"body": f"private {n + 1}", "client_id": f"p{n + 1}"})
    ok(base, "POST", f"/v1/users/{fay['id']}/block", eli["token"])

    # What the job queue delivers (notifications of invitations, of messages) lands first.
    wait_for("the notifications", lambda: settled(base, people), 30)
    reads = []
    for person in people:
        paths = ["/v1/me", "/v1/me/events", "/v1/me/rooms", "/v1/me/invitations", "/v1/me/notifications", "/v1/me/blocks",
                 "/v1/events/nearby?lat=55.68&lon=12.57&radius_km=20"]
        paths += [f"/v1/users/{other['id']}" for other in people if other is not person]
        for game in (football, padel, run):
            paths += [f"/v1/events/{game}", f"/v1/events/{game}/attendees", f"/v1/events/{game}/messages"]
        paths.append(f"/v1/rooms/{conversation}/messages")
        for path in paths:
            status, body = call(base, "GET", path, person["token"])
            reads.append({"as": person["email"], "path": path, "status": status, "body": body if status == 200 else None})
    return [{k: p[k] for k in ("email", "password", "id")} for p in people], reads


def settled(base, people, seen={}):
    """Whether everyone's notifications are as many as at the last look (a second ago)."""
    counts = tuple(len(ok(base, "GET", "/v1/me/notifications", p["token"])["items"]) for p in people)
    stable = seen.get("counts") == counts
    seen["counts"] = counts
    time.sleep(1)
    return stable


def migration_count(binary_folder):
    """The newest migration BINARY's checkout has."""
    return max(int(p.name[:4]) for p in (binary_folder / "Migrations" / "sqlite").glob("*.sql"))


def serve_and_fill(database_url, folder, engine):
    subprocess.run([BINARY, "migrate"], env=environment(database_url, folder, 0), check=True)
    subprocess.run([BINARY, "seed", "--demo", "--users", "20", "--events", "30", "--seed", "7"],
                   env=environment(database_url, folder, 0), check=True, stdout=subprocess.DEVNULL)
    port = free_port()
    log = open(folder / f"serve-{engine}.log", "w")
    server = subprocess.Popen([BINARY, "serve"], env=environment(database_url, folder, port), stdout=log, stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{port}"
    try:
        wait_for("the server", lambda: call(base, "GET", "/ready")[0] == 200)
        made_at = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
        people, reads = fill(base)
    finally:
        server.terminate()
        server.wait(timeout=30)
    return made_at, people, reads


def main():
    OUT.mkdir(parents=True, exist_ok=True)
    # The checkout the binary was built in (.build/<triple>/debug/sportlook), for its migrations.
    checkout = next(p for p in pathlib.Path(BINARY).parents if (p / "Migrations").is_dir())
    migration = migration_count(checkout)
    folder = pathlib.Path(tempfile.mkdtemp(prefix="sportlook-fixture-"))
    os.chmod(folder, 0o777)
    try:
        # SQLite.
        path = folder / "fixture.sqlite"
        made_at, people, reads = serve_and_fill(f"sqlite:{path}", folder, "sqlite")
        subprocess.run(["python3", "-c", f"import sqlite3; c = sqlite3.connect('{path}'); c.execute('PRAGMA wal_checkpoint(TRUNCATE)'); c.execute('VACUUM')"],
                       check=True)
        shutil.copy(path, OUT / "sqlite.sqlite")
        (OUT / "sqlite.json").write_text(json.dumps({"made_at": made_at, "migration": migration, "people": people, "reads": reads},
                                                    indent=1, ensure_ascii=False) + "\n")
        # PostgreSQL, on a cluster of its own.
        data, port = folder / "pg", free_port()
        subprocess.run(AS_POSTGRES + [f"{PG_BIN}/initdb", "-D", str(data), "-U", "postgres", "-A", "trust", "-E", "UTF8", "--locale=C"],
                       check=True, stdout=subprocess.DEVNULL)
        subprocess.run(AS_POSTGRES + [f"{PG_BIN}/pg_ctl", "-D", str(data), "-o", f"-p {port} -k {folder} -c listen_addresses=127.0.0.1",
                                      "-l", str(folder / "pg.log"), "-w", "start"], check=True, stdout=subprocess.DEVNULL)
        try:
            subprocess.run([f"{PG_BIN}/createdb", "-h", "127.0.0.1", "-p", str(port), "-U", "postgres", "fixture"], check=True)
            url = f"postgres://postgres@127.0.0.1:{port}/fixture"
            made_at, people, reads = serve_and_fill(url, folder, "postgres")
            dump = subprocess.run([f"{PG_BIN}/pg_dump", "-h", "127.0.0.1", "-p", str(port), "-U", "postgres", "--no-owner", "--no-privileges",
                                   "fixture"], check=True, capture_output=True, text=True).stdout
            # psql's \restrict lines (from pg_dump 15.14 on) only newer psql reads: the dump is plain SQL without them.
            dump = "".join(line for line in dump.splitlines(keepends=True) if not line.startswith(("\\restrict", "\\unrestrict")))
            (OUT / "postgres.sql").write_text(dump)
            (OUT / "postgres.json").write_text(json.dumps({"made_at": made_at, "migration": migration, "people": people, "reads": reads},
                                                          indent=1, ensure_ascii=False) + "\n")
        finally:
            subprocess.run(AS_POSTGRES + [f"{PG_BIN}/pg_ctl", "-D", str(data), "-m", "fast", "-w", "stop"], check=False, stdout=subprocess.DEVNULL)
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    print(f"fixture at migration {migration} in {OUT}: {len(reads)} reads on each engine")


if __name__ == "__main__":
    main()
