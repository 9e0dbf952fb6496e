#!/usr/bin/env bash
# Resident memory growth side by side: loads the same data set into Spinel (as ./spinel-server
# runs it) and into redis-server, and reports how much each process's RSS grew, with used_memory.
# Growth is read twice: 2 s after the load ends, and once the process has settled (RSS sampled
# every second from then on until two samples 1 s apart differ by less than 0.5 MB, at least 5 s
# and at most 20 s after the load). A JVM still holds memory 2 s after a load that it gives back
# within seconds when idle: the JIT compilers' arenas (freed by the JVM's chunk cleaner every 5 s)
# and what glibc trims (-XX:TrimNativeHeapInterval); Redis's RSS does not move after a load.
#
#   bench/memory.sh [strings|counters|hashes|zsets|sets|all] [--spinel-opts "..."] [--scale N] [--rounds N]
#
# Data sets (as in the project's memory targets):
#   strings   1M keys "key:%012d" with 16-byte values
#   counters  1M keys "counter:%012d" holding integers (INCRBY)
#   hashes    100k hashes of 10 fields (8-byte field names, 8-byte values)
#   zsets     10k sorted sets of 100 members
#   sets      200k sets of 5 short string members ("tag:%04d"), the shape of tags and memberships
# --scale N multiplies the number of keys (N=10: 10M strings, 100k sorted sets...), to separate the
# JVM's fixed costs (young generation, heap slack, JIT) from the cost per key. --rounds N (default 3)
# loads each set N times into fresh servers and reports the medians: the JVM's growth varies
# from run to run with the timing of its collections.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
source "$here/bench/lib.sh"
sets="${1:-all}"; shift || true
spinel_opts="" scale=1 rounds=3
while [[ $# -gt 0 ]]; do
  case "$1" in
    --spinel-opts) spinel_opts=$2; shift 2 ;;
    --scale) scale=$2; shift 2 ;;
    --rounds) rounds=$2; shift 2 ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
  esac
done
[[ $sets == all ]] && sets="strings counters hashes zsets sets"

work=$(mktemp -d /tmp/spinel-mem.XXXXXX)
gen() {
  python3 - "$1" "$scale" <<'PY'
import sys
scale = int(sys.argv[2])
out = sys.stdout.buffer
def cmd(*a):
    out.write(b"*%d\r\n" % len(a) + b"".join(b"$%d\r\n%s\r\n" % (len(x), x) for x in a))
kind = sys.argv[1]
if kind == "strings":
    for i in range(1_000_000 * scale): cmd(b"SET", b"key:%012d" % i, b"v" * 16)
elif kind == "counters":
    for i in range(1_000_000 * scale): cmd(b"INCRBY", b"counter:%012d" % i, b"%d" % (i * 7919 % 1000000))
elif kind == "hashes":
    for i in range(100_000 * scale):
        a = [b"HSET", b"hash:%08d" % i]
        for f in range(10): a += [b"field%03d" % f, b"val%05d" % ((i + f) % 100000)]
        cmd(*a)
elif kind == "zsets":
    for i in range(10_000 * scale):
        a = [b"ZADD", b"zset:%06d" % i]
        for m in range(100): a += [b"%d" % ((i * 31 + m) % 1000), b"member:%06d" % m]
        cmd(*a)
elif kind == "sets":
    for i in range(200_000 * scale):
        cmd(b"SADD", b"set:%08d" % i, *[b"tag:%04d" % ((i * 7 + m * 13) % 5000) for m in range(5)])
PY
}
# kB from awk, bytes in bash: mawk (Debian's awk) prints or %d-formats a number past 2^31 wrongly
rss() { local kb; kb=$(awk '/VmRSS/ {print $2}' /proc/$1/status); echo $((kb * 1024)); }
used() { redis-cli -p "$1" info memory | awk -F: '/^used_memory:/ {print $2}' | tr -d '\r'; }

echo "| data set | Spinel RSS growth, settled (2 s) | Redis RSS growth, settled (2 s) | ratio settled (2 s) | Spinel used_memory | Redis used_memory |"
echo "|---|---:|---:|---:|---:|---:|"
# RSS once it stops moving (see above); $1 pid, $2 the reading 2 s after the load
settled() {
  local pid=$1 prev=$2 cur waited=2
  while (( waited < 20 )); do
    sleep 1; waited=$((waited + 1))
    cur=$(rss "$pid")
    if (( waited >= 5 )) && (( (cur > prev ? cur - prev : prev - cur) < 524288 )); then break; fi
    prev=$cur
  done
  echo "$cur"
}
for set in $sets; do
  gen "$set" > "$work/$set.resp"
  grow_s=() grow_r=() grow2_s=() grow2_r=() used_s=0 used_r=0
  for round in $(seq 1 "$rounds"); do
  for who in spinel redis; do
    port=$(free_port)
    if [[ $who == spinel ]]; then
      SPINEL_JAVA_OPTS="$spinel_opts" "$here/spinel-server" --port "$port" --save "" --appendonly no --dir "$work" \
        > "$work/$who.log" 2>&1 &
    else
      redis-server --port "$port" --save "" --appendonly no --dir "$work" > "$work/$who.log" 2>&1 &
    fi
    pid=$!
    wait_for_server "$who" "$port" "$pid" "$work/$who.log"
    [[ $who == spinel ]] && pid=$(pgrep -f "io.spinel.server.Main --port $port")
    sleep 1
    before=$(rss "$pid")
    redis-cli -p "$port" --pipe < "$work/$set.resp" > /dev/null
    sleep 2
    after2=$(rss "$pid")
    after=$(settled "$pid" "$after2")
    if [[ $who == spinel ]]; then grow_s+=($((after - before))); grow2_s+=($((after2 - before))); used_s=$(used "$port")
    else grow_r+=($((after - before))); grow2_r+=($((after2 - before))); used_r=$(used "$port"); fi
    kill "$pid"; wait 2>/dev/null || true
  done
  done
  python3 -c "
import statistics
m = lambda xs: statistics.median(xs) / 1048576
s, r = m([$(IFS=,; echo "${grow_s[*]}")]), m([$(IFS=,; echo "${grow_r[*]}")])
s2, r2 = m([$(IFS=,; echo "${grow2_s[*]}")]), m([$(IFS=,; echo "${grow2_r[*]}")])
print(f'| $set | {s:.1f} MB ({s2:.1f}) | {r:.1f} MB ({r2:.1f}) | {s/r:.2f}x ({s2/r2:.2f}x) | {$used_s/1048576:.1f} MB | {$used_r/1048576:.1f} MB |')"
done
rm -rf "$work"
