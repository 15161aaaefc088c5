# Shared helpers for the benchmark scripts (sourced, not run).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
WORK="${BENCH_WORK:-$(mktemp -d /tmp/sportlook-bench-XXXXXX)}"
chmod 755 "$WORK"

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

# apt-get install what is missing (the benchmarks, not CI, need these).
ensure_packages() {
  local missing=()
  for spec in "$@"; do
    local pkg="${spec%%:*}" probe="${spec#*:}"
    [ -e "$probe" ] || command -v "$probe" >/dev/null 2>&1 || missing+=("$pkg")
  done
  if [ ${#missing[@]} -gt 0 ]; then
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}"
  fi
}

pg_bin() { ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1; }

as_postgres() { if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }

# Starts a throwaway PostgreSQL on a free port; sets PG_PORT, PG_URL, PG_DATA.
start_postgres() {
  PG_DATA="$WORK/pg"
  mkdir -p "$PG_DATA"
  [ "$(id -u)" = 0 ] && chown postgres "$PG_DATA" "$WORK"
  as_postgres "$(pg_bin)/initdb" -D "$PG_DATA/data" -A trust -U sportlook -E UTF8 --locale=C >/dev/null
  PG_PORT="$(free_port)"
  as_postgres "$(pg_bin)/pg_ctl" -D "$PG_DATA/data" -l "$PG_DATA/log" -w -o "-p $PG_PORT -k $PG_DATA -c listen_addresses=127.0.0.1 -c max_connections=300 -c shared_buffers=1GB -c synchronous_commit=off ${PG_EXTRA:-}" start >/dev/null
  "$(pg_bin)/psql" -h 127.0.0.1 -p "$PG_PORT" -U sportlook -d postgres -qc "CREATE DATABASE bench" >/dev/null
  PG_URL="postgres://sportlook@127.0.0.1:$PG_PORT/bench"
}

stop_postgres() { [ -n "${PG_DATA:-}" ] && as_postgres "$(pg_bin)/pg_ctl" -D "$PG_DATA/data" -m fast stop >/dev/null 2>&1 || true; }

# Builds the release binaries once.
# The server from the main package, the harness from Benchmarks/Package.swift (a
# package of its own: the server's tests never build it).
release_build() {
  (cd "$ROOT" && swift build -c release --product sportlook >/dev/null)
  (cd "$ROOT/Benchmarks" && swift build -c release --product sportlook-bench >/dev/null)
  SPORTLOOK="$ROOT/.build/release/sportlook"
  BENCH="$ROOT/Benchmarks/.build/release/sportlook-bench"
}

machine_line() {
  echo "$(nproc) cores ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)), $(free -g | awk '/Mem:/ {print $2}') GiB, $(. /etc/os-release; echo "$PRETTY_NAME"), $(swift --version 2>/dev/null | head -1)"
}

# Starts `sportlook serve` (release) on DATABASE_URL=$1 with extra env; sets SERVER_PID, SERVER_PORT, SERVER_LOG, READY_SECONDS.
start_server() {
  local url="$1"; shift
  SERVER_PORT="$(free_port)"
  SERVER_LOG="$WORK/serve-$SERVER_PORT.log"
  local started; started=$(date +%s.%N)
  env DATABASE_URL="$url" PORT="$SERVER_PORT" BCRYPT_COST=4 RATE_LIMIT_USER=0 RATE_LIMIT_GLOBAL=0 REGISTER_MAX_PER_ADDRESS=0 INVITE_DAILY_LIMIT=1000000 WS_FRAME_RATE=100000 WS_FRAME_BURST=100000 LOG_LEVEL=info "$@" "$SPORTLOOK" serve > "$SERVER_LOG" 2>&1 &
  SERVER_PID=$!
  for _ in $(seq 1 6000); do
    curl -sf "http://127.0.0.1:$SERVER_PORT/ready" >/dev/null 2>&1 && break
    kill -0 "$SERVER_PID" 2>/dev/null || { cat "$SERVER_LOG"; return 1; }
    sleep 0.05
  done
  READY_SECONDS=$(python3 -c "print(f'{$(date +%s.%N) - $started:.1f}')")
  SERVER_STARTED=$started
}

# Waits until the server's log has a line matching $1; prints the seconds since the server started.
wait_for_log() {
  for _ in $(seq 1 12000); do
    grep -q "$1" "$SERVER_LOG" && break
    kill -0 "$SERVER_PID" 2>/dev/null || { cat "$SERVER_LOG"; return 1; }
    sleep 0.05
  done
  python3 -c "print(f'{$(date +%s.%N) - $SERVER_STARTED:.1f}')"
}

stop_server() { [ -n "${SERVER_PID:-}" ] && kill "$SERVER_PID" 2>/dev/null && wait "$SERVER_PID" 2>/dev/null || true; SERVER_PID=; }

rss_mb() { awk '/VmRSS/ {printf "%.0f", $2/1024}' "/proc/$1/status"; }

# CPU time a process has used (user and system), in clock ticks (getconf CLK_TCK a second).
cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }

# A token for a new account on the running server.
new_token() {
  curl -sf -X POST "http://127.0.0.1:$SERVER_PORT/v1/auth/register" -H 'Content-Type: application/json' \
    -d "{\"name\":\"Bench\",\"email\":\"bench-$RANDOM$RANDOM@bench.example\",\"password\":\"benchmark password\"}" \
    | python3 -c 'import json,sys; print(json.load(sys.stdin)["access_token"])'
}

# A token for a new account on the running server that plays football, tennis and running
# (the caller of the people-nearby benchmarks).
new_player_token() {
  local token; token="$(new_token)"
  curl -sf -X PATCH "http://127.0.0.1:$SERVER_PORT/v1/me" -H "Authorization: Bearer $token" -H 'Content-Type: application/json' \
    -d '{"sports": ["football", "tennis", "running"]}' > /dev/null
  echo "$token"
}

# Runs wrk (2 threads, 64 connections) and prints "requests/s|p99" from its report.
run_wrk() {
  local seconds="$1"; shift
  local out; out="$(wrk -t2 -c64 -d"${seconds}s" --latency "$@")"
  echo "$out" >> "$WORK/wrk.log"
  local rps p99 errors
  rps="$(echo "$out" | awk '/Requests\/sec/ {print $2}')"
  p99="$(echo "$out" | awk '$1 == "99%" {print $2}')"
  errors="$(echo "$out" | awk '/Non-2xx/ {print $5}')"
  echo "${rps}|${p99}|${errors:-0}"
}

# wrk (run_wrk) on one kind of request at BASE (http://host:port) for SECONDS: health
# (GET /health), page (GET /page, the bare server's), nearby or people (events or people
# nearby, 5 km, 50 a page, around the centres in CENTRES, with TOKEN).
wrk_kind() {
  local kind="$1" base="$2" seconds="$3"
  case "$kind" in
    health|page) run_wrk "$seconds" "$base/$kind" ;;
    nearby) SEARCH_PATH="/v1/events/nearby?radius_km=5&limit=50" run_wrk "$seconds" -s "$ROOT/Benchmarks/wrk-search.lua" "$base" ;;
    people) SEARCH_PATH="/v1/users/nearby?radius_km=5&limit=50" run_wrk "$seconds" -s "$ROOT/Benchmarks/wrk-search.lua" "$base" ;;
    *) echo "unknown kind $kind (health, page, nearby, people)" >&2; return 2 ;;
  esac
}

# The capacity of an HTTP GET route on the running server (start_server): a constant
# rate stepped up (sportlook-bench http-capacity, open loop) until p99 > BOUND ms.
# Usage: http_capacity LABEL CSV BOUND_MS STEPS PATH [CENTRES]; prints the table rows
# and the CAPACITY line (both also kept in $WORK/capacity.out). CAPACITY_ARGS adds
# options (e.g. --connections 1000 --overload-seconds 30).
http_capacity() {
  local label="$1" csv="$2" bound="$3" steps="$4" path="$5" centres="${6:-}"
  "$BENCH" http-capacity --port "$SERVER_PORT" --token "${TOKEN:-}" --path "$path" ${centres:+--centres "$centres"} \
    --steps "$steps" --step-seconds "${CAPACITY_STEP_SECONDS:-10}" --bound-ms "$bound" --server-pid "$SERVER_PID" \
    --label "$label" --csv "$csv" ${CAPACITY_ARGS:-} | tee -a "$WORK/capacity.out"
}

# matplotlib for the capacity plots (only the benchmarks that plot need it).
ensure_matplotlib() { python3 -c 'import matplotlib' 2>/dev/null || python3 -m pip install --quiet --disable-pip-version-check matplotlib; }

# The capacity rows http_capacity kept, as markdown. Usage: capacity_report WHAT PNG
capacity_report() {
  local what="$1" png="$2"
  echo
  echo "Capacity of $what (open loop, \`sportlook-bench http-capacity\`, ${CAPACITY_STEP_SECONDS:-10} s a step, one process on the same machine; p99 bound 20 ms):"
  echo
  grep -m1 '^| database' "$WORK/capacity.out"
  grep -m1 '^|---' "$WORK/capacity.out"
  grep -v '^| database\|^|---' "$WORK/capacity.out" | grep '^| '
  echo
  grep '^CAPACITY | ' "$WORK/capacity.out" | sed 's/^CAPACITY | /- /; s/ | / /'
  echo
  echo "![$what: offered requests/s against p99]($png)"
}
