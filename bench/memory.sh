#!/usr/bin/env bash
# Resident memory growth side by side: loads the same data set into Spinel (as ./spinel-server
# runs it) and into redis-server, and reports how much each process's RSS grew, with used_memory.
#
#   bench/memory.sh [strings|counters|hashes|zsets|all] [--spinel-opts "..."]
#
# Data sets (as in the project's memory targets):
#   strings   1M keys "key:%012d" with 16-byte values
#   counters  1M keys "counter:%012d" holding integers (INCRBY)
#   hashes    100k hashes of 10 fields (8-byte field names, 8-byte values)
#   zsets     10k sorted sets of 100 members
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
sets="${1:-all}"; shift || true
spinel_opts=""
while [[ $# -gt 0 ]]; do
  case "$1" in
    --spinel-opts) spinel_opts=$2; shift 2 ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
  esac
done
[[ $sets == all ]] && sets="strings counters hashes zsets"

work=$(mktemp -d /tmp/spinel-mem.XXXXXX)
gen() {
  python3 - "$1" <<'PY'
import sys
out = sys.stdout.buffer
def cmd(*a):
    out.write(b"*%d\r\n" % len(a) + b"".join(b"$%d\r\n%s\r\n" % (len(x), x) for x in a))
kind = sys.argv[1]
if kind == "strings":
    for i in range(1_000_000): cmd(b"SET", b"key:%012d" % i, b"v" * 16)
elif kind == "counters":
    for i in range(1_000_000): cmd(b"INCRBY", b"counter:%012d" % i, b"%d" % (i * 7919 % 1000000))
elif kind == "hashes":
    for i in range(100_000):
        a = [b"HSET", b"hash:%08d" % i]
        for f in range(10): a += [b"field%03d" % f, b"val%05d" % ((i + f) % 100000)]
        cmd(*a)
elif kind == "zsets":
    for i in range(10_000):
        a = [b"ZADD", b"zset:%06d" % i]
        for m in range(100): a += [b"%d" % ((i * 31 + m) % 1000), b"member:%06d" % m]
        cmd(*a)
PY
}
rss() { awk '/VmRSS/ {print $2 * 1024}' /proc/$1/status; }
used() { redis-cli -p "$1" info memory | awk -F: '/^used_memory:/ {print $2}' | tr -d '\r'; }
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

echo "| data set | Spinel RSS growth | Redis RSS growth | ratio | Spinel used_memory | Redis used_memory |"
echo "|---|---:|---:|---:|---:|---:|"
for set in $sets; do
  gen "$set" > "$work/$set.resp"
  declare -A grow=() usedm=()
  for who in spinel redis; do
    port=$(free_port)
    if [[ $who == spinel ]]; then
      SPINEL_JAVA_OPTS="$spinel_opts" "$here/spinel-server" --port "$port" --save "" --appendonly no --dir "$work" \
        > "$work/$who.log" 2>&1 &
    else
      redis-server --port "$port" --save "" --appendonly no --dir "$work" > "$work/$who.log" 2>&1 &
    fi
    pid=$!
    for _ in $(seq 1 600); do redis-cli -p "$port" ping >/dev/null 2>&1 && break; sleep 0.2; done
    [[ $who == spinel ]] && pid=$(pgrep -f "io.spinel.server.Main --port $port")
    sleep 1
    before=$(rss "$pid")
    redis-cli -p "$port" --pipe < "$work/$set.resp" > /dev/null
    sleep 2
    after=$(rss "$pid")
    grow[$who]=$((after - before))
    usedm[$who]=$(used "$port")
    kill "$pid"; wait 2>/dev/null || true
  done
  python3 -c "
s, r = ${grow[spinel]}, ${grow[redis]}
print(f'| $set | {s/1048576:.1f} MB | {r/1048576:.1f} MB | {s/r:.2f}x | {${usedm[spinel]}/1048576:.1f} MB | {${usedm[redis]}/1048576:.1f} MB |')"
done
rm -rf "$work"
