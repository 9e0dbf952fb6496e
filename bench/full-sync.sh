#!/usr/bin/env bash
# Full synchronization side by side: a redis-server replica of a Spinel master and of a
# redis-server master holding the same 1M keys (`key:N` -> `value-value-N`, written by Lua on
# both); the seconds from starting the replica until its INFO says master_link_status:up, each
# master in turn (--rounds N, default 3, alternating: this machine's speed drifts), medians.
#
#   bench/full-sync.sh [--rounds N]
#
# Masters: Spinel with repl-diskless-sync yes (its default: the RDB streamed to the socket) and
# no (written to a temporary file, then sent with its length), redis-server with its default
# diskless synchronization; every master with repl-diskless-sync-delay 0 (the default 5 s would
# be most of the figure). The replica is redis-server with repl-diskless-load disabled (its
# default: it stores the RDB, then loads it).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
source "$here/bench/lib.sh"
need_redis_tools
rounds=3
while [[ $# -gt 0 ]]; do
  case "$1" in
    --rounds) rounds=$2; shift 2 ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
  esac
done
work=$(mktemp -d /tmp/spinel-fullsync.XXXXXX)
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; wait 2>/dev/null || true; rm -rf "$work"; }
trap cleanup EXIT

declare -A port_of
for who in spinel redis; do
  mkdir -p "$work/$who"
  port_of[$who]=$(free_port)
  if [[ $who == spinel ]]; then
    "$here/spinel-server" --port "${port_of[$who]}" --bind 127.0.0.1 --save "" --dir "$work/$who" \
      --repl-diskless-sync-delay 0 > "$work/$who.log" 2>&1 &
  else
    redis-server --port "${port_of[$who]}" --bind 127.0.0.1 --save "" --dir "$work/$who" \
      --repl-diskless-sync-delay 0 > "$work/$who.log" 2>&1 &
  fi
  pids+=($!)
  wait_for_server "$who" "${port_of[$who]}" "${pids[-1]}" "$work/$who.log"
  redis-cli -p "${port_of[$who]}" eval \
    "for i = 1, 1000000 do redis.call('set', 'key:' .. i, 'value-value-' .. i) end" 0 > /dev/null
done
[[ "$(redis-cli -p "${port_of[spinel]}" dbsize)" == "$(redis-cli -p "${port_of[redis]}" dbsize)" ]] ||
  { echo "the masters hold different key counts" >&2; exit 1; }

sync_once() { # master-port -> seconds until a new replica's link is up
  local master=$1 port dir pid t0 t1
  port=$(free_port); dir=$(mktemp -d "$work/replica.XXXXXX")
  t0=$(date +%s.%N)
  redis-server --port "$port" --bind 127.0.0.1 --save "" --dir "$dir" --replicaof 127.0.0.1 "$master" \
    > "$dir/log" 2>&1 &
  pid=$!
  until redis-cli -p "$port" info replication 2>/dev/null | grep -q 'master_link_status:up'; do
    kill -0 "$pid" 2>/dev/null || { echo "the replica of $master ended:" >&2; tail -5 "$dir/log" >&2; exit 1; }
    sleep 0.01
  done
  t1=$(date +%s.%N)
  [[ "$(redis-cli -p "$port" dbsize)" == 1000000 ]] || { echo "the replica of $master holds $(redis-cli -p "$port" dbsize) keys" >&2; exit 1; }
  kill "$pid"; wait "$pid" 2>/dev/null || true; rm -rf "$dir"
  printf "%.3f" "$(echo "$t1 - $t0" | bc)"
}

median() { printf '%s\n' $1 | sort -n | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : sprintf("%.3f", (a[NR/2] + a[NR/2+1]) / 2)}'; }

declare -A took
for round in $(seq 1 "$rounds"); do
  for mode in spinel-diskless spinel-disk redis-diskless; do
    who=${mode%%-*}
    if [[ $who == spinel ]]; then
      redis-cli -p "${port_of[spinel]}" config set repl-diskless-sync "$([[ $mode == *-diskless ]] && echo yes || echo no)" > /dev/null
    fi
    took[$mode]+="$(sync_once "${port_of[$who]}") "
  done
done

echo "| master | seconds (each round) | median |"
echo "|---|---|---|"
for mode in spinel-diskless spinel-disk redis-diskless; do
  echo "| $mode | ${took[$mode]}| $(median "${took[$mode]}") |"
done
echo
echo "Spinel on JDK $(redis-cli -p "${port_of[spinel]}" info server | awk -F: '/^java_version:/ {print $2}' | tr -d '\r'); $(redis-server --version)"
