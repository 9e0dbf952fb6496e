#!/usr/bin/env bash
# MULTI / 5 x SET / EXEC side by side (redis-benchmark cannot send transactions): starts Spinel and
# redis-server on free ports, persistence off, and runs bench/MultiExecBench.java against both.
#
#   bench/multi-exec.sh [clients=50] [seconds=10] [rounds=3]
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
source "$here/bench/lib.sh"
work=$(mktemp -d /tmp/spinel-multi.XXXXXX)
sp_port=$(free_port); rd_port=$(free_port)
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; wait 2>/dev/null || true; rm -rf "$work"; }
trap cleanup EXIT
"$here/spinel-server" --port "$sp_port" --bind 127.0.0.1 --save "" --appendonly no --dir "$work" > "$work/spinel.log" 2>&1 &
pids+=($!)
redis-server --port "$rd_port" --bind 127.0.0.1 --save "" --appendonly no --dir "$work" > "$work/redis.log" 2>&1 &
pids+=($!)
wait_for_server spinel "$sp_port" "${pids[0]}" "$work/spinel.log"
wait_for_server redis "$rd_port" "${pids[1]}" "$work/redis.log"
echo "| test | Spinel tx/s | Redis tx/s | ratio | Spinel p50 ms | Redis p50 ms | Spinel p99 ms | Redis p99 ms |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|"
java "$here/bench/MultiExecBench.java" "$sp_port" "$rd_port" "${1:-50}" "${2:-10}" "${3:-3}"
