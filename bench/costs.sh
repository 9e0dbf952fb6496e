#!/usr/bin/env bash
# Server time per call, command by command, Spinel against Redis (bench/costs.py says how):
#
#   bench/costs.sh [--rounds N] [REGEX]     e.g. bench/costs.sh --rounds 3 '^(sinter|sunion)'
#
# Starts ./spinel-server and redis-server on free ports with persistence off, runs bench/costs.py
# against both and stops them. Prints a table; docs/BENCHMARKS.md ("Server time per command")
# holds the figures of record.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
source "$here/bench/lib.sh"
rounds=2
filter=""
while (( $# )); do
  case "$1" in
    --rounds) rounds=$2; shift 2 ;;
    *) filter=$1; shift ;;
  esac
done
need_redis_tools
work=$(mktemp -d /tmp/spinel-costs.XXXXXX)
sp_port=$(free_port); rd_port=$(free_port)
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; wait 2>/dev/null || true; rm -rf "$work"; }
trap cleanup EXIT
mkdir -p "$work/spinel" "$work/redis"
"$here/spinel-server" --port "$sp_port" --bind 127.0.0.1 --save "" --appendonly no --dir "$work/spinel" \
  > "$work/spinel.log" 2>&1 &
pids+=($!)
redis-server --port "$rd_port" --bind 127.0.0.1 --save "" --appendonly no --dir "$work/redis" \
  > "$work/redis.log" 2>&1 &
pids+=($!)
wait_for_server spinel "$sp_port" "${pids[0]}" "$work/spinel.log"
wait_for_server redis "$rd_port" "${pids[1]}" "$work/redis.log"
python3 "$here/bench/costs.py" "$sp_port" "$rd_port" "$rounds" $filter
