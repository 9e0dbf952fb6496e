#!/usr/bin/env bash
# Spinel next to jedis-mock (com.github.fppt:jedis-mock), the in-JVM Redis stand-ins a JVM test
# suite can use: start-up time, per-test overhead, and SET/GET throughput with redis-benchmark
# (redis-server alongside for reference when installed). Usage:
#   bench/jedis-mock/run.sh [PORT_BASE]      (uses PORT_BASE to +3; default 7501)
# Needs a JDK 17+, Maven and redis-benchmark (Debian: redis-tools). Nothing here runs in ./mvnw verify.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$root"
base=${1:-7501}
requests=${REQUESTS:-100000}
clients=${CLIENTS:-50}

${MVN:-mvn} -B -q -Pbench -DskipTests package -pl bench/jedis-mock -am
cp="bench/jedis-mock/target/spinel-bench-jedis-mock-0.1.0-SNAPSHOT.jar:bench/jedis-mock/target/lib/*"
java_opts=(-Xms1g -Xmx1g -XX:+UseG1GC)
main=io.spinel.bench.JedisMockComparison

echo "== cold start (fresh JVM each)"
for i in 1 2 3 4 5; do
  for server in spinel jedis-mock spinel-netty embedded; do
    java "${java_opts[@]}" -cp "$cp" $main cold "$server" 2>/dev/null
  done
done

echo "== warm start, stop, per-test overhead"
java "${java_opts[@]}" -cp "$cp" $main startup 200

pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; }
trap cleanup EXIT

wait_port() {
  for _ in $(seq 1 100); do
    redis-cli -p "$1" ping >/dev/null 2>&1 && return 0
    sleep 0.1
  done
  echo "nothing answers on port $1" >&2
  return 1
}

# redis-benchmark redraws a progress line with \r when its output is not a terminal: keep the results.
results() { tr '\r' '\n' | grep 'requests per second'; }

bench() { # name port
  echo "-- $1: redis-benchmark -h 127.0.0.1 -p $2 -t set,get -n $requests -c $clients -q"
  redis-benchmark -h 127.0.0.1 -p "$2" -t set,get -n "$requests" -c "$clients" -q | results
  echo "-- $1: same, pipelined -P 16"
  redis-benchmark -h 127.0.0.1 -p "$2" -t set,get -n "$requests" -c "$clients" -P 16 -q | results
}

echo "== throughput"
java "${java_opts[@]}" -cp "$cp" $main serve spinel "$base" & pids+=($!)
wait_port "$base"
redis-benchmark -h 127.0.0.1 -p "$base" -t set,get -n "$requests" -c "$clients" -q >/dev/null # JIT warm-up
bench spinel "$base"

java "${java_opts[@]}" -cp "$cp" $main serve spinel-netty "$((base + 3))" & pids+=($!)
wait_port "$((base + 3))"
redis-benchmark -h 127.0.0.1 -p "$((base + 3))" -t set,get -n "$requests" -c "$clients" -q >/dev/null
bench spinel-netty "$((base + 3))"

java "${java_opts[@]}" -cp "$cp" $main serve jedis-mock "$((base + 1))" & pids+=($!)
wait_port "$((base + 1))"
redis-benchmark -h 127.0.0.1 -p "$((base + 1))" -t set,get -n "$requests" -c "$clients" -q >/dev/null
bench jedis-mock "$((base + 1))"

if command -v redis-server >/dev/null 2>&1; then
  redis-server --port "$((base + 2))" --bind 127.0.0.1 --save "" --appendonly no --daemonize no >/dev/null & pids+=($!)
  wait_port "$((base + 2))"
  bench redis-server "$((base + 2))"
fi
