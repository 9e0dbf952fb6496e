#!/usr/bin/env bash
# Side-by-side benchmark: Spinel and redis-server on the same machine, persistence off, measured
# alternately with redis-benchmark over several rounds; reports medians and ratios.
#
#   bench/compare.sh [-c clients] [-P pipeline] [-n requests] [-d datasize] [-t tests] [-r keyspace]
#                    [--rounds N] [--label text] [--no-docs] [--setup commands] [--subscribers N:CHANNEL]
#                    [--warmup N] [--server "options"] [-- command args...]
#
# After --, a command to benchmark instead of the default tests (redis-benchmark's own syntax, with
# __rand_int__ placeholders). --setup gives redis-cli commands (one per line) run on both servers
# after the FLUSHALL that precedes every measured run, to prepare data the command reads.
# --subscribers N:CHANNEL keeps N redis-cli clients subscribed to CHANNEL (reading every message)
# during each measured run, e.g. for -- PUBLISH CHANNEL payload.
# --warmup N: requests sent to Spinel before measuring, for the JIT, in five runs (default: -n).
# --server "options": configuration given to both servers after the defaults (persistence off),
# e.g. --server "--appendonly yes --appendfsync everysec" to measure writes with the AOF on.
#
# Writes a Markdown table (requests/s, p50 and p99 latency for each server, ratio Spinel/Redis) to
# stdout and, unless --no-docs, into docs/BENCHMARKS.md (a section per parameter set, replaced on
# re-run) plus a PNG chart of the ratios in docs/benchmarks.png. Needs redis-server and
# redis-benchmark (Debian: apt-get install redis-server redis-tools).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
source "$here/bench/lib.sh"
clients=50 pipeline=1 requests=1000000 datasize=3 tests="" keyspace=100000 rounds=3 label="" docs=1 setup=""
subscribers="" warmup="" server_options=""
custom=()
while [[ $# -gt 0 ]]; do
  case "$1" in
    -c) clients=$2; shift 2 ;;
    -P) pipeline=$2; shift 2 ;;
    -n) requests=$2; shift 2 ;;
    -d) datasize=$2; shift 2 ;;
    -t) tests=$2; shift 2 ;;
    -r) keyspace=$2; shift 2 ;;
    --rounds) rounds=$2; shift 2 ;;
    --label) label=$2; shift 2 ;;
    --no-docs) docs=0; shift ;;
    --setup) setup=$2; shift 2 ;;
    --subscribers) subscribers=$2; shift 2 ;;
    --warmup) warmup=$2; shift 2 ;;
    --server) server_options=$2; shift 2 ;;
    --) shift; custom=("$@"); break ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
  esac
done
need_redis_tools

work=$(mktemp -d /tmp/spinel-bench.XXXXXX)
sp_port=$(free_port); rd_port=$(free_port)
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; wait 2>/dev/null || true; rm -rf "$work/spinel" "$work/redis"; }
trap cleanup EXIT

read -r -a extra <<< "$server_options"
mkdir -p "$work/spinel" "$work/redis" # each server's files (an AOF with --server) apart
"$here/spinel-server" --port "$sp_port" --bind 127.0.0.1 --save "" --appendonly no --dir "$work/spinel" \
  "${extra[@]}" > "$work/spinel.log" 2>&1 &
pids+=($!)
redis-server --port "$rd_port" --bind 127.0.0.1 --save "" --appendonly no --dir "$work/redis" \
  "${extra[@]}" > "$work/redis.log" 2>&1 &
pids+=($!)
wait_for_server spinel "$sp_port" "${pids[0]}" "$work/spinel.log"
wait_for_server redis "$rd_port" "${pids[1]}" "$work/redis.log"

bench_args=(-c "$clients" -P "$pipeline" -n "$requests" -d "$datasize" -r "$keyspace" --csv)
[[ -n "$tests" ]] && bench_args+=(-t "$tests")
(( ${#custom[@]} )) && bench_args+=("${custom[@]}")
# Warm-up (JIT) for Spinel, not measured (as many requests as one measured run unless --warmup),
# in five passes, each prepared exactly as a measured run is (FLUSHALL, then --setup): each
# redis-benchmark run opens its clients afresh and starts with CONFIG GET, paths that the code
# compiled during the previous run's steady state has not seen, so the JIT throws that code away
# and compiles it again at the start of the next run. Counted with -XX:+PrintCompilation over
# back-to-back 200k-request LPUSH runs from a fresh start: 791, 179, 115, 37, 52, 6 compilations
# (145, 68, 21, 7, 4, 0 methods thrown away), p99 2.5 ms in the first two and 0.7-0.9 ms from the
# fifth on: it takes about five connection storms before the compiled code covers them, as it
# does in a server that has been up for a while. The FLUSHALL matters as much: a measured run
# starts from an empty keyspace, so it creates keys and grows small encodings into large ones,
# paths a warm-up on already-grown data never takes; C2 compiles them as never taken, and the
# measured run then deoptimizes zadd, lookupWrite, ZSet.add... (-Xlog:deoptimization=debug) and
# recompiles them while it runs: single ZADDs of 1.7-4 ms in the slow log (a compiler thread
# holding the core), p99 0.84-0.86 ms against 0.45 with the warm-up prepared like the run.
for _ in 1 2 3 4 5; do
  redis-cli -p "$sp_port" flushall >/dev/null
  [[ -n "$setup" ]] && printf '%s\n' "$setup" | redis-cli -p "$sp_port" >/dev/null
  redis-benchmark -p "$sp_port" -c "$clients" -P "$pipeline" -n "$(( ${warmup:-$requests} / 5 + 1 ))" \
    -d "$datasize" -r "$keyspace" ${tests:+-t "$tests"} -q "${custom[@]}" > /dev/null 2>&1 || true
done

# user + system CPU of a process, in clock ticks (after the command name, which may hold spaces)
cpu_ticks() { sed 's/.*) //' "/proc/$1/stat" | awk '{print $12 + $13}'; }

for round in $(seq 1 "$rounds"); do
  if (( round % 2 )); then order=(spinel redis); else order=(redis spinel); fi
  for who in "${order[@]}"; do
    port=$sp_port; [[ $who == redis ]] && port=$rd_port
    redis-cli -p "$port" flushall >/dev/null
    [[ -n "$setup" ]] && printf '%s\n' "$setup" | redis-cli -p "$port" >/dev/null
    subs=()
    if [[ -n "$subscribers" ]]; then
      for _ in $(seq 1 "${subscribers%%:*}"); do
        redis-cli -p "$port" subscribe "${subscribers#*:}" > /dev/null 2>&1 &
        subs+=($!)
      done
      for _ in $(seq 1 100); do
        n=$(redis-cli -p "$port" pubsub numsub "${subscribers#*:}" | tail -1)
        [[ "$n" == "${subscribers%%:*}" ]] && break; sleep 0.1
      done
    fi
    pid=${pids[0]}; [[ $who == redis ]] && pid=${pids[1]}
    cpu_before=$(cpu_ticks "$pid")
    redis-benchmark -p "$port" "${bench_args[@]}" > "$work/$who.$round.csv"
    cpu_after=$(cpu_ticks "$pid")
    # the server's CPU per request over the whole run (every test in it), in µs
    awk -v t=$((cpu_after - cpu_before)) -v hz="$(getconf CLK_TCK)" -v n="$requests" \
      -v tests="$(tail -n +2 "$work/$who.$round.csv" | grep -c .)" \
      'BEGIN { if (tests > 0) printf "%.3f\n", t / hz * 1e6 / (n * tests) }' > "$work/$who.$round.cpu"
    if (( ${#subs[@]} )); then
      kill "${subs[@]}" 2>/dev/null || true
      wait "${subs[@]}" 2>/dev/null || true
    fi
  done
done

jdk="JDK $(redis-cli -p "$sp_port" info server | awk -F: '/^java_version:/ {print $2}' | tr -d '\r') ($(grep -o 'JVM options .*' "$work/spinel.log" | head -1))"
cpu=$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //')
cores=$(nproc)
redis_version=$(redis-server --version | awk '{print $3}')
cmdline="redis-benchmark ${bench_args[*]}"
[[ -n "$subscribers" ]] && cmdline+=" (with ${subscribers%%:*} subscribers on ${subscribers#*:})"
[[ -n "$warmup" ]] && cmdline+=" (after $warmup warm-up requests)"
[[ -n "$server_options" ]] && cmdline+=" (servers started with $server_options)"
python3 "$here/bench/report.py" "$work" "$rounds" "$cmdline" "$jdk" "$cpu ($cores cores)" "$redis_version" "$label" \
  > "$work/section.md"
cat "$work/section.md"
if [[ $docs == 1 ]]; then
  python3 "$here/bench/report.py" --merge "$here/docs/BENCHMARKS.md" "$work/section.md" "$cmdline"
  java "$here/bench/Chart.java" "$here/docs/BENCHMARKS.md" "$here/docs/benchmarks.png" || echo "(chart not drawn)" >&2
fi
