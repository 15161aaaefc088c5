"""Seeds a running server for Benchmarks/replicas/run and writes wrk's request list.

PEOPLE people in games of GROUP (an organiser and the rest going), MESSAGES messages in
each game's chat. Each line of the list is `TOKEN PATH`: a page of a game's history,
someone's public profile or the caller's chats list, in equal parts, each as one of the
game's players.
Usage: python3 seed.py BASE PEOPLE GROUP MESSAGES OUT
"""
import json
import random
import sys
import time
import urllib.request

BASE, PEOPLE, GROUP, MESSAGES, OUT = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]


def call(method, path, token=None, body=None):
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(BASE + path, data=data, method=method)
    request.add_header("Content-Type", "application/json")
    if token:
        request.add_header("Authorization", "Bearer " + token)
    with urllib.request.urlopen(request) as response:
        return json.load(response)


people = []
for n in range(PEOPLE):
    made = call("POST", "/v1/auth/register", body={"name": f"Player {n}", "email": f"player-{n}@bench.example", "password": "benchmark password"})
    people.append((made["access_token"], made["user"]["id"]))
starts = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(time.time() + 3 * 86_400))
lines = []
random.seed(1)
for first in range(0, PEOPLE, GROUP):
    players = people[first:first + GROUP]
    event = call("POST", "/v1/events", players[0][0], {"title": f"Game {first}", "sport": "football", "starts_at": starts,
                                                         "capacity": GROUP + 1, "location": {"lat": 55.68, "lon": 12.57}})
    for token, _ in players[1:]:
        call("POST", f"/v1/events/{event['id']}/attendance", token)
    for n in range(MESSAGES):
        token = players[n % len(players)][0]
        call("POST", f"/v1/events/{event['id']}/messages", token, {"body": f"Message {n} about the game", "client_id": f"m-{first}-{n}"})
    for token, _ in players:
        other = random.choice(players)[1]
        lines.append(f"{token} /v1/events/{event['id']}/messages?limit=50")
        lines.append(f"{token} /v1/users/{other}")
        lines.append(f"{token} /v1/me/rooms")
random.shuffle(lines)
with open(OUT, "w") as out:
    out.write("\n".join(lines) + "\n")
print(f"{PEOPLE} people, {PEOPLE // GROUP} games, {len(lines)} requests in the list")
