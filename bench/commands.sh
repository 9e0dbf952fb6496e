#!/usr/bin/env bash
# The single-command side-by-side tables of docs/BENCHMARKS.md (issues 4, 8 and 10), each one a
# bench/compare.sh run at -c 50 -P 1 with its data prepared on both servers by --setup:
#
#   bench/commands.sh [--rounds N] [--warmup N] [--no-docs] [name ...]
#
# names: pfadd pfcount setbit bitcount geoadd geosearch evalsha eval publish (default: all).
# PFCOUNT reads an HLL filled by one PFADD of 20,000 elements; BITCOUNT counts the 12.5 KB string
# SETBIT bits 99999 1 makes; GEOSEARCH searches 2,000 seeded random points (longitude 12-16,
# latitude 36-40); EVALSHA runs a one-call script loaded by SCRIPT LOAD; PUBLISH has 10
# subscribers reading. SETBIT writes random keys because redis-benchmark pads __rand_int__ with
# zeros, which both servers reject as a bit offset.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
opts=(-n 200000)
names=()
while (( $# )); do
  case "$1" in
    --rounds) opts+=(--rounds "$2"); shift 2 ;;
    --warmup) opts+=(--warmup "$2"); shift 2 ;;
    --no-docs) opts+=(--no-docs); shift ;;
    *) names+=("$1"); shift ;;
  esac
done
(( ${#names[@]} )) || names=(pfadd pfcount setbit bitcount geoadd geosearch evalsha eval publish)

incr_script="return redis.call('incr', KEYS[1])"
incr_sha=$(printf '%s' "$incr_script" | sha1sum | cut -d' ' -f1)
# one PFADD of 20,000 elements, and one GEOADD of 2,000 points, the same on every run
pfadd_setup="PFADD hll $(seq 1 20000 | sed 's/^/e/' | tr '\n' ' ')"
geo_setup="GEOADD geo $(awk 'BEGIN { srand(42); for (i = 0; i < 2000; i++) printf "%.6f %.6f p%d ", 12 + 4 * rand(), 36 + 4 * rand(), i }')"

for name in "${names[@]}"; do
  case "$name" in
    pfadd) "$here/compare.sh" "${opts[@]}" -- PFADD hll __rand_int__ ;;
    pfcount) "$here/compare.sh" "${opts[@]}" --setup "$pfadd_setup" -- PFCOUNT hll ;;
    setbit) "$here/compare.sh" "${opts[@]}" -- SETBIT bits:__rand_int__ 7 1 ;;
    bitcount) "$here/compare.sh" "${opts[@]}" --setup "SETBIT bits 99999 1" -- BITCOUNT bits ;;
    geoadd) "$here/compare.sh" "${opts[@]}" -- GEOADD geo 13.361389 38.115556 m:__rand_int__ ;;
    geosearch) "$here/compare.sh" "${opts[@]/200000/100000}" --setup "$geo_setup" \
                 -- GEOSEARCH geo FROMLONLAT 14 38 BYRADIUS 50 km ASC COUNT 10 ;;
    evalsha) "$here/compare.sh" "${opts[@]}" --setup "SCRIPT LOAD \"$incr_script\"" -- EVALSHA "$incr_sha" 1 counter ;;
    eval) "$here/compare.sh" "${opts[@]/200000/100000}" \
            -- EVAL "for i = 1, 10 do redis.call('incr', KEYS[1]) end" 1 counter ;;
    publish) "$here/compare.sh" "${opts[@]}" --subscribers 10:news -- PUBLISH news hello ;;
    *) echo "unknown benchmark: $name" >&2; exit 2 ;;
  esac
done
