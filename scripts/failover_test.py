"""A failover under load, with Patroni and etcd on loopback (Debian's packages).

etcd, and two Patroni nodes of one PostgreSQL cluster (synchronous mode: a commit is
acknowledged once the replica has it); two `sportlook serve` instances with
DATABASE_URL naming both nodes and DATABASE_READ_URLS both too. Under a steady mix —
chat messages, joins, profiles and history pages through both instances — the leader
is killed (SIGKILL to its Patroni and its postmaster). Checked:
- no answer is a 500, and none takes longer than DATABASE_TIMEOUT and the hosts' probes;
- while no primary takes writes, reads answer and writes answer 503 `read_only` (or
  `unavailable` for the calls cut by the kill itself);
- Patroni promotes the replica and writes resume on both instances without a restart;
- every message acknowledged before, during and after is in the room once, and the
  seqs have no gap; every join acknowledged is there.
Prints the time from the kill to the first accepted write, on each instance.
Usage: python3 scripts/failover_test.py SPORTLOOK_BINARY [RESULTS_FILE]
"""
import json
import os
import pathlib
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from loopback import free_port, wait_for

BINARY = os.path.abspath(sys.argv[1])
RESULTS = sys.argv[2] if len(sys.argv) > 2 else None
TIMEOUT = 3
PG_BIN = sorted(pathlib.Path("/usr/lib/postgresql").glob("*/bin"))[-1]
AS_POSTGRES = ["runuser", "-u", "postgres", "--"] if os.geteuid() == 0 else []
problems = []




def http(method, url, token=None, body=None, timeout=30):
    """(status, json body or None, seconds)."""
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(url, data=data, method=method)
    request.add_header("Content-Type", "application/json")
    if token:
        request.add_header("Authorization", "Bearer " + token)
    started = time.monotonic()
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            text = response.read()
            return response.status, (json.loads(text) if text else None), time.monotonic() - started
    except urllib.error.HTTPError as error:
        text = error.read()
        try:
            parsed = json.loads(text)
        except ValueError:
            parsed = None
        return error.code, parsed, time.monotonic() - started


def node_config(folder, name, etcd_port, rest_port, pg_port):
    return f"""scope: sportlook
name: {name}
restapi:
  listen: 127.0.0.1:{rest_port}
  connect_address: 127.0.0.1:{rest_port}
etcd3:
  hosts: 127.0.0.1:{etcd_port}
bootstrap:
  dcs:
    ttl: 10
    loop_wait: 1
    retry_timeout: 3
    maximum_lag_on_failover: 16777216
    synchronous_mode: true
    postgresql:
      use_pg_rewind: false
      parameters:
        max_connections: 300
        hot_standby: "on"
        wal_level: replica
        max_wal_senders: 10
        max_replication_slots: 10
        wal_keep_size: 128MB
  initdb:
    - encoding: UTF8
    - locale: C
    - auth: trust
  pg_hba:
    - host all all 127.0.0.1/32 trust
    - host replication all 127.0.0.1/32 trust
    - local all all trust
postgresql:
  listen: 127.0.0.1:{pg_port}
  connect_address: 127.0.0.1:{pg_port}
  data_dir: {folder}/{name}
  bin_dir: {PG_BIN}
  pgpass: {folder}/{name}.pgpass
  authentication:
    superuser: {{username: postgres, password: postgres}}
    replication: {{username: replicator, password: replicator}}
  parameters:
    unix_socket_directories: {folder}
"""


class Cluster:
    def __init__(self, folder):
        self.folder = folder
        self.processes = {}
        self.etcd_port, peer_port = free_port(), free_port()
        self.nodes = {name: {"rest": free_port(), "pg": free_port()} for name in ("node1", "node2")}
        log = open(f"{folder}/etcd.log", "w")
        self.processes["etcd"] = subprocess.Popen(
            ["etcd", "--name", "default", "--data-dir", f"{folder}/etcd",
             "--listen-client-urls", f"http://127.0.0.1:{self.etcd_port}", "--advertise-client-urls", f"http://127.0.0.1:{self.etcd_port}",
             "--listen-peer-urls", f"http://127.0.0.1:{peer_port}", "--initial-advertise-peer-urls", f"http://127.0.0.1:{peer_port}",
             "--initial-cluster", f"default=http://127.0.0.1:{peer_port}"], stdout=log, stderr=subprocess.STDOUT)
        wait_for("etcd", lambda: urllib.request.urlopen(f"http://127.0.0.1:{self.etcd_port}/health", timeout=2).status == 200)
        for name, ports in self.nodes.items():
            path = f"{folder}/{name}.yml"
            pathlib.Path(path).write_text(node_config(folder, name, self.etcd_port, ports["rest"], ports["pg"]))
            self.start(name)
            if name == "node1":
                wait_for("node1 to lead", lambda: self.role("node1") == "primary", 90)
        wait_for("node2 to stream from node1", lambda: self.role("node2") == "replica" and self.streaming("node2"), 90)

    def start(self, name):
        log = open(f"{self.folder}/{name}.log", "a")
        self.processes[name] = subprocess.Popen(AS_POSTGRES + ["patroni", f"{self.folder}/{name}.yml"], stdout=log, stderr=subprocess.STDOUT)

    def role(self, name):
        """`primary` or `replica` (Patroni 3.0 says `master` for the first)."""
        with urllib.request.urlopen(f"http://127.0.0.1:{self.nodes[name]['rest']}/patroni", timeout=2) as response:
            role = json.load(response).get("role")
            return "primary" if role == "master" else role

    def streaming(self, name):
        with urllib.request.urlopen(f"http://127.0.0.1:{self.nodes[name]['rest']}/patroni", timeout=2) as response:
            return json.load(response).get("state") == "running"

    def psql(self, name, sql):
        subprocess.run([f"{PG_BIN}/psql", "-h", "127.0.0.1", "-p", str(self.nodes[name]["pg"]), "-U", "postgres", "-d", "postgres", "-qAt", "-c", sql],
                       check=True, capture_output=True)

    def kill(self, name):
        """SIGKILL to the node's Patroni and its postmaster: the machine gone."""
        postmaster = int(pathlib.Path(f"{self.folder}/{name}/postmaster.pid").read_text().split()[0])
        self.processes[name].send_signal(signal.SIGKILL)
        os.kill(postmaster, signal.SIGKILL)
        # Its backends end with their postmaster; a new primary must not find them holding the port.
        subprocess.run(["pkill", "-9", "-f", f"{self.folder}/{name}"], check=False)

    def stop(self):
        for name in ("node1", "node2"):
            process = self.processes.get(name)
            if process and process.poll() is None:
                process.send_signal(signal.SIGINT)
        for name in ("node1", "node2"):
            try:
                self.processes[name].wait(timeout=30)
            except Exception:
                self.processes[name].kill()
        subprocess.run(["pkill", "-9", "-f", self.folder], check=False)
        self.processes["etcd"].terminate()
        self.processes["etcd"].wait(timeout=10)


class Server:
    def __init__(self, folder, index, database_url, read_urls):
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        env = dict(os.environ, DATABASE_URL=database_url, DATABASE_READ_URLS=read_urls, PORT=str(self.port), BCRYPT_COST="4",
                   DATABASE_TIMEOUT=f"{TIMEOUT}s", RATE_LIMIT_USER="0", RATE_LIMIT_GLOBAL="0", REGISTER_MAX_PER_ADDRESS="0",
                   CHAT_RATE_LIMIT="100000", LOG_LEVEL="warning", MEDIA_STORE=f"file:{folder}/media", WEB_CLIENT="off")
        self.log = open(f"{folder}/serve-{index}.log", "w")
        self.process = subprocess.Popen([BINARY, "serve"], env=env, stdout=self.log, stderr=subprocess.STDOUT)
        wait_for(f"instance {index}", lambda: http("GET", self.base + "/ready", timeout=2)[0] == 200, 120)

    def stop(self):
        self.process.terminate()
        try:
            self.process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.process.kill()


def main():
    folder = tempfile.mkdtemp(prefix="sportlook-failover-", dir="/dev/shm" if os.path.isdir("/dev/shm") else None)
    os.chmod(folder, 0o777)
    if os.geteuid() == 0:
        shutil.chown(folder, "postgres")
    cluster = servers = None
    try:
        cluster = Cluster(folder)
        cluster.psql("node1", "CREATE DATABASE sportlook")
        hosts = ",".join(f"127.0.0.1:{ports['pg']}" for ports in cluster.nodes.values())
        reads = ",".join(f"postgres://postgres@127.0.0.1:{ports['pg']}/sportlook" for ports in cluster.nodes.values())
        servers = [Server(folder, 1, f"postgres://postgres@{hosts}/sportlook", reads)]
        servers.append(Server(folder, 2, f"postgres://postgres@{hosts}/sportlook", reads))
        walk(cluster, servers)
    finally:
        for server in servers or []:
            server.stop()
        if cluster:
            cluster.stop()
        if problems:
            for name in ("node1.log", "node2.log", "serve-1.log", "serve-2.log"):
                path = pathlib.Path(folder, name)
                if path.exists():
                    print(f"--- {name} (end)\n" + path.read_text()[-3000:])
        if os.environ.get("KEEP_FAILOVER_FOLDER"):
            print(f"kept {folder}")
        else:
            shutil.rmtree(folder, ignore_errors=True)
    if problems:
        print("\n".join(["failover test FAILED:"] + problems))
        raise SystemExit(1)
    print("failover test passed")


def walk(cluster, servers):
    first = servers[0].base
    people = []
    for n in range(12):
        status, made, _ = http("POST", first + "/v1/auth/register", body={"name": f"Player {n}", "email": f"p{n}@failover.test", "password": "failover password"})
        assert status == 201, made
        people.append((made["access_token"], made["user"]["id"]))
    starts = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(time.time() + 3 * 86_400))
    status, game, _ = http("POST", first + "/v1/events", people[0][0], {"title": "Failover five-a-side", "sport": "football", "starts_at": starts,
                                                                        "location": {"lat": 55.68, "lon": 12.57}, "capacity": 20})
    assert status == 201, game
    for token, _ in people[1:4]:
        assert http("POST", f"{first}/v1/events/{game['id']}/attendance", token)[0] == 200

    acknowledged = {}  # client_id → seq
    joined = set()
    counts = {}
    first_write_after = {}
    lock = threading.Lock()
    killed_at = [None]
    stop = threading.Event()
    bound = TIMEOUT + 3 * 1 + 2  # the deadline, a probe of each host, and slack

    def record(kind, status, seconds, at_instance):
        """One answer; `seconds` from its sending to its answer."""
        answered = time.monotonic()
        sent = answered - seconds
        with lock:
            counts[(kind, status)] = counts.get((kind, status), 0) + 1
            since_kill = f"sent {sent - killed_at[0]:+.1f} s from the kill" if killed_at[0] else "sent before the kill"
            if status >= 500 and status != 503:
                problems.append(f"{kind} answered {status} ({since_kill})")
            if seconds > bound:
                problems.append(f"{kind} took {seconds:.1f} s (bound {bound} s; {since_kill}, answered {status}, instance {at_instance + 1})")
            # The first write *sent* after the kill and accepted: one sent before it and
            # answered after proves nothing about the failover.
            if killed_at[0] and sent >= killed_at[0] and kind in ("message", "join") and status in (200, 201) and at_instance not in first_write_after:
                first_write_after[at_instance] = answered - killed_at[0]

    def load(worker, server_index):
        base = servers[server_index].base
        n = 0
        while not stop.is_set():
            n += 1
            token = people[(worker * 3 + n) % 4][0]
            client_id = f"w{worker}-{n}"
            status, body, seconds = http("POST", f"{base}/v1/events/{game['id']}/messages", token, {"body": f"message {client_id}", "client_id": client_id})
            record("message", status, seconds, server_index)
            if status == 201:
                with lock:
                    acknowledged[client_id] = body["seq"]
            status, _, seconds = http("GET", f"{base}/v1/users/{people[n % len(people)][1]}", token)
            record("profile", status, seconds, server_index)
            status, _, seconds = http("GET", f"{base}/v1/events/{game['id']}/messages?limit=20", token)
            record("history", status, seconds, server_index)
            if n % 5 == 0:
                joiner = people[4 + (worker * 4 + n // 5) % 8]
                status, _, seconds = http("POST", f"{base}/v1/events/{game['id']}/attendance", joiner[0])
                record("join", status, seconds, server_index)
                if status == 200:
                    with lock:
                        joined.add(joiner[1])
            time.sleep(0.02)

    threads = [threading.Thread(target=load, args=(worker, worker % 2)) for worker in range(4)]
    for thread in threads:
        thread.start()
    time.sleep(5)
    before = len(acknowledged)
    killed_at[0] = time.monotonic()
    cluster.kill("node1")
    wait_for("writes to resume on both instances", lambda: len(first_write_after) == 2, 90)
    time.sleep(3)
    stop.set()
    for thread in threads:
        thread.join()
    if cluster.role("node2") != "primary":
        problems.append(f"node2 is {cluster.role('node2')} after the failover")

    # Everything acknowledged is there once, in seq order without a gap.
    history, after = [], 0
    while True:
        status, page, _ = http("GET", f"{first}/v1/events/{game['id']}/messages?after_seq={after}&limit=100", people[0][0])
        assert status == 200, page
        history += page["items"]
        if not page["items"] or not page.get("next_cursor"):
            break
        after = page["items"][-1]["seq"]
    seqs = [m["seq"] for m in history]
    if seqs != list(range(1, len(seqs) + 1)):
        problems.append(f"the seqs have a gap or a repeat: {seqs[:5]}…{seqs[-5:]}")
    held = {m["client_id"]: m["seq"] for m in history if m.get("client_id")}
    lost = [c for c, seq in acknowledged.items() if held.get(c) != seq]
    if lost:
        problems.append(f"{len(lost)} acknowledged messages missing or moved, e.g. {lost[:3]}")
    if len(held) != len(history):
        problems.append("a message is in the room twice")
    status, event, _ = http("GET", f"{first}/v1/events/{game['id']}/attendees?limit=100", people[0][0])
    going = {a["id"] for a in (event or {}).get("items", [])} if status == 200 else set()
    if status == 200 and not joined <= going:
        problems.append(f"acknowledged joins missing: {joined - going}")
    read_only = sum(v for (kind, status), v in counts.items() if status == 503 and kind in ("message", "join"))
    reads_during = sum(v for (kind, status), v in counts.items() if kind in ("profile", "history") and status == 200)
    summary = (f"messages acknowledged: {before} before the kill, {len(acknowledged)} in all, all present once, seqs 1–{len(seqs)} without a gap; "
               f"writes refused with 503 meanwhile: {read_only}; reads answered 200: {reads_during}; "
               f"kill → first accepted write: {first_write_after[0]:.1f} s (instance 1), {first_write_after[1]:.1f} s (instance 2); "
               f"answers by kind and status: {dict(sorted((f'{k} {s}', v) for (k, s), v in counts.items()))}")
    print(summary)
    if RESULTS:
        with open(RESULTS, "w") as out:
            out.write(f"Command: `python3 scripts/failover_test.py .build/debug/sportlook {RESULTS}` — {time.strftime('%Y-%m-%dT%H:%MZ', time.gmtime())}\n\n")
            out.write("Patroni 3.0 (ttl 10 s, loop_wait 1 s, synchronous mode) with etcd 3.4, two nodes on loopback; two debug-built instances, DATABASE_TIMEOUT 3 s.\n\n")
            out.write(summary + "\n")


if __name__ == "__main__":
    main()
