#!/usr/bin/env bash
# Persistence side by side: the same 1M keys of mixed types in Spinel and redis-server, then
#   - SAVE: seconds for a foreground snapshot
#   - load: seconds from process start until DBSIZE answers the full count (median of rounds)
#   - AOF start: the same with appendonly yes, from a multi-part AOF whose RDB base holds the
#     first half of the data and whose incr file the second half as commands (the shape just
#     before an automatic rewrite: the incr file grows to the base's size)
#   - GET p50/p99 under redis-benchmark (-c 50) while BGSAVE runs back to back, and without
#
#   bench/persistence.sh [--rounds N] [--load-rounds N]
#
# Both servers hold the data at once; SAVE and the two GET runs are measured --rounds times
# (default 3) per server and the load --load-rounds times (default 5), the two servers alternating
# in every round (this machine's speed drifts over minutes), and medians are reported.
#
# Data: 400k strings (16-32 B), 200k hashes of 5 fields, 200k lists of 5, 100k sets of 5 and
# 100k sorted sets of 5, some with expiries (a day away, so none expire during the run).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
source "$here/bench/lib.sh"
rounds=3 load_rounds=5
while [[ $# -gt 0 ]]; do
  case "$1" in
    --rounds) rounds=$2; shift 2 ;;
    --load-rounds) load_rounds=$2; shift 2 ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
  esac
done
work=$(mktemp -d /tmp/spinel-persist.XXXXXX)
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; wait 2>/dev/null || true; rm -rf "$work"; }
trap cleanup EXIT

python3 - > "$work/data.resp" <<'PY'
import sys
out = sys.stdout.buffer
def cmd(*a):
    out.write(b"*%d\r\n" % len(a) + b"".join(b"$%d\r\n%s\r\n" % (len(x), x) for x in a))
for i in range(400_000):
    cmd(b"SET", b"str:%d" % i, b"value-%d-" % i * 2)
    if i % 10 == 0: cmd(b"EXPIRE", b"str:%d" % i, b"86400")
for i in range(200_000):
    cmd(b"HSET", b"hash:%d" % i, *[x for f in range(5) for x in (b"f%d" % f, b"v%d" % (i + f))])
    cmd(b"RPUSH", b"list:%d" % i, *[b"e%d" % (i + e) for e in range(5)])
for i in range(100_000):
    cmd(b"SADD", b"set:%d" % i, *[b"m%d" % (i * 7 + m) for m in range(5)])
    cmd(b"ZADD", b"zset:%d" % i, *[x for m in range(5) for x in (b"%d" % m, b"z%d" % (i + m))])
PY

start() { # who port [options that override the defaults here] -> pid
  local who=$1 port=$2; shift 2
  if [[ $who == spinel ]]; then
    "$here/spinel-server" --port "$port" --bind 127.0.0.1 --save "" --appendonly no --dir "$work/$who" \
      --dbfilename dump.rdb "$@" > "$work/$who.log" 2>&1 &
  else
    redis-server --port "$port" --bind 127.0.0.1 --save "" --appendonly no --dir "$work/$who" \
      --dbfilename dump.rdb "$@" > "$work/$who.log" 2>&1 &
  fi
  pids+=($!)
}
lat() { # port -> "p50 p99" of GET under load (avg over the csv line)
  redis-benchmark -p "$1" -c 50 -n "$2" -r 400000 -t get --csv 2>/dev/null | awk -F, '/"GET"/ {gsub(/"/,""); print $5, $7}'
}

median() { printf '%s\n' $1 | sort -n | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : sprintf("%.3f", (a[NR/2] + a[NR/2+1]) / 2)}'; }

declare -A port_of
for who in spinel redis; do
  mkdir -p "$work/$who"
  port_of[$who]=$(free_port)
  start "$who" "${port_of[$who]}"; wait_for_server "$who" "${port_of[$who]}" "${pids[-1]}" "$work/$who.log"
  redis-cli -p "${port_of[$who]}" --pipe < "$work/data.resp" > /dev/null
done
keys=$(redis-cli -p "${port_of[spinel]}" dbsize)
[[ "$(redis-cli -p "${port_of[redis]}" dbsize)" == "$keys" ]] || { echo "the servers hold different key counts" >&2; exit 1; }
for who in spinel redis; do
  redis-benchmark -p "${port_of[$who]}" -c 50 -n 200000 -r 400000 -t get -q > /dev/null 2>&1 # warm-up
done

declare -A saves p50s p99s bp50s bp99s bgs
for round in $(seq 1 "$rounds"); do
  for who in spinel redis; do
    port=${port_of[$who]}
    t0=$(date +%s.%N); redis-cli -p "$port" save > /dev/null; t1=$(date +%s.%N)
    saves[$who]+="$(printf "%.3f" "$(echo "$t1 - $t0" | bc)") "
    read -r p50 p99 < <(lat "$port" 1000000)
    p50s[$who]+="$p50 "; p99s[$who]+="$p99 "
    # back-to-back BGSAVEs while the same load runs
    (
      n=0
      while [[ ! -f "$work/stop" ]]; do
        redis-cli -p "$port" bgsave > /dev/null 2>&1 || true
        while redis-cli -p "$port" info persistence | grep -q 'rdb_bgsave_in_progress:1'; do sleep 0.05; done
        n=$((n + 1)); echo "$n" > "$work/bgsaves"
      done
    ) &
    saver=$!
    sleep 0.2
    read -r bp50 bp99 < <(lat "$port" 1000000)
    touch "$work/stop"; wait "$saver" || true; rm -f "$work/stop"
    bp50s[$who]+="$bp50 "; bp99s[$who]+="$bp99 "; bgs[$who]+="$(cat "$work/bgsaves") "
  done
done
for who in spinel redis; do
  redis-cli -p "${port_of[$who]}" save > /dev/null # the file the load rounds read
  redis-cli -p "${port_of[$who]}" shutdown nosave > /dev/null 2>&1 || true
done
wait "${pids[@]}" 2>/dev/null || true

# Starts timed: each server restarted on the files it wrote, the rounds alternating between the
# two (this machine's speed drifts over minutes); seconds from the exec until DBSIZE answers the
# full count, polled every 5 ms on one connection.
timed_start() { # who [options] -> seconds in $work/took
  local who=$1; shift
  local port t0 poller
  port=$(free_port)
  t0=$(python3 -c 'import time; print("%.6f" % time.time())')
  python3 - "$port" "$keys" > "$work/t1" <<'PY' &
import socket, sys, time
port, expect = int(sys.argv[1]), b":" + sys.argv[2].encode() + b"\r\n"
deadline = time.monotonic() + 120
while time.monotonic() < deadline:
    try:
        s = socket.create_connection(("127.0.0.1", port), timeout=5)
        break
    except OSError:
        time.sleep(0.005)
s.settimeout(30)
while time.monotonic() < deadline:
    s.sendall(b"DBSIZE\r\n")
    if s.recv(64) == expect:
        print("%.6f" % time.time())
        sys.exit(0)
    time.sleep(0.005)
sys.exit(1)
PY
  poller=$!
  start "$who" "$port" "$@"
  wait "$poller" || { echo "$who did not answer DBSIZE $keys after its start (log: $work/$who.log)" >&2; cat "$work/$who.log" >&2; exit 1; }
  python3 -c "print('%.3f' % ($(cat "$work/t1") - $t0))" > "$work/took"
  redis-cli -p "$port" shutdown nosave > /dev/null 2>&1 || true
  wait "${pids[-1]}" 2>/dev/null || true
}
declare -A loads aof_loads
for round in $(seq 1 "$load_rounds"); do
  for who in spinel redis; do
    sleep 1
    timed_start "$who"; loads[$who]+="$(cat "$work/took") "
  done
done

# The AOF directories: the first half of the commands, BGREWRITEAOF (an RDB base), the second
# half (the incr file); no automatic rewrite. SHUTDOWN fsyncs the AOF.
python3 - "$work" <<'PY'
import sys
data = open(sys.argv[1] + "/data.resp", "rb").read()
cut = data.index(b"\r\n*", len(data) // 2) + 2
open(sys.argv[1] + "/first.resp", "wb").write(data[:cut])
open(sys.argv[1] + "/second.resp", "wb").write(data[cut:])
PY
aof_options=(--dir "" --appendonly yes --auto-aof-rewrite-percentage 0)
for who in spinel redis; do
  mkdir -p "$work/$who-aof"
  aof_options[1]="$work/$who-aof"
  port=$(free_port)
  start "$who" "$port" "${aof_options[@]}"; wait_for_server "$who" "$port" "${pids[-1]}" "$work/$who.log"
  redis-cli -p "$port" --pipe < "$work/first.resp" > /dev/null
  redis-cli -p "$port" bgrewriteaof > /dev/null
  while redis-cli -p "$port" info persistence | grep -qE 'aof_rewrite_in_progress:1|aof_rewrite_scheduled:1'; do sleep 0.1; done
  redis-cli -p "$port" --pipe < "$work/second.resp" > /dev/null
  [[ "$(redis-cli -p "$port" dbsize)" == "$keys" ]] || { echo "$who's AOF run holds a different key count" >&2; exit 1; }
  redis-cli -p "$port" shutdown nosave > /dev/null 2>&1 || true
  wait "${pids[-1]}" 2>/dev/null || true
done
for round in $(seq 1 "$load_rounds"); do
  for who in spinel redis; do
    sleep 1
    aof_options[1]="$work/$who-aof"
    timed_start "$who" "${aof_options[@]}"; aof_loads[$who]+="$(cat "$work/took") "
  done
done
echo "| server | keys | SAVE s | load s | AOF start s | GET p50 ms | GET p99 ms | GET p50 during BGSAVE | GET p99 during BGSAVE | BGSAVEs during the GET run |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
for who in spinel redis; do
  echo "| $who | $keys | $(median "${saves[$who]}") | $(median "${loads[$who]}") | $(median "${aof_loads[$who]}") | $(median "${p50s[$who]}") | $(median "${p99s[$who]}") | $(median "${bp50s[$who]}") | $(median "${bp99s[$who]}") | $(median "${bgs[$who]}") |"
done
echo "medians of $rounds rounds (load and AOF start: $load_rounds rounds); each figure by round, Spinel first in every round:"
for who in spinel redis; do
  echo "$who: SAVE ${saves[$who]}| load ${loads[$who]}| AOF start ${aof_loads[$who]}| p99 ${p99s[$who]}| p99 during BGSAVE ${bp99s[$who]}| BGSAVEs ${bgs[$who]}"
done
# Round by round the two servers ran back to back, so a pair shares the machine's speed of the
# moment: how many pairs Spinel won says more than two medians when the machine drifts.
pairs() { # "spinel figures" "redis figures" -> "W of N"
  python3 -c 'import sys; a, b = sys.argv[1].split(), sys.argv[2].split(); print("%d of %d" % (sum(float(x) < float(y) for x, y in zip(a, b)), len(a)))' "$1" "$2"
}
echo "rounds where Spinel took less time: SAVE $(pairs "${saves[spinel]}" "${saves[redis]}"), load $(pairs "${loads[spinel]}" "${loads[redis]}"), AOF start $(pairs "${aof_loads[spinel]}" "${aof_loads[redis]}"), p99 during BGSAVE $(pairs "${bp99s[spinel]}" "${bp99s[redis]}")"
