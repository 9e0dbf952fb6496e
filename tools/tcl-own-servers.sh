#!/usr/bin/env bash
# Runs files of Redis 7.0.15's TCL suite that start servers of their own (tagged external:skip,
# e.g. integration/replication*.tcl, psync2*.tcl, block-repl.tcl), with Spinel where the suite
# starts redis-server. ../shared/tools/tcl-suite.sh measures the external mode; this is for the
# tests it cannot run.
#
#   tools/tcl-own-servers.sh REDIS_TREE FILE... [-- test_helper options]
#
# REDIS_TREE: the tree ../shared/tools/tcl-setup.sh extracted (e.g. /tmp/redis-7.0.15); it is
# copied once to REDIS_TREE-spinel, whose src/redis-server starts a snapshot of the current build
# (taken at each run, so that editing or rebuilding the project meanwhile does not reach the
# servers the suite starts). Example:
#   tools/tcl-own-servers.sh /tmp/redis-7.0.15 integration/replication-psync integration/psync2
# Tests that look for Redis's fork child (its pid, its CPU time) or for jemalloc fail by design:
# see docs/COMMANDS.md, Replication.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
tree=${1:?usage: tcl-own-servers.sh REDIS_TREE FILE... [-- test_helper options]}
shift
files=() extra=()
while [[ $# -gt 0 ]]; do
  if [[ $1 == -- ]]; then shift; extra=("$@"); break; fi
  files+=(--single "$1"); shift
done
[[ ${#files[@]} -gt 0 ]] || { echo "name at least one test file" >&2; exit 2; }
copy="$tree-spinel"
snap="${TMPDIR:-/tmp}/spinel-tcl-snapshot"

(cd "$here" && ./mvnw -q -B -DskipTests -pl server -am package)
rm -rf "$snap" && mkdir -p "$snap/server"
cp "$here/spinel-server" "$snap/" && cp -r "$here/server/target" "$snap/server/"
# the class archive is made again for the copy: cp gives every file a new time, so the launcher
# could not tell an archive of the previous build from one of this build's jars
rm -f "$snap"/server/target/*.aot "$snap"/server/target/*.jsa
if [[ ! -d $copy ]]; then
  cp -r "$tree" "$copy"
  rm -f "$copy/src/redis-server"
fi
# Debian's checkers judge the files Spinel writes, where the tests call them
for b in redis-check-aof redis-check-rdb; do
  [[ -e $copy/src/$b ]] || ln -s "$(command -v $b)" "$copy/src/$b"
done
# a link, so that the process title names src/redis-server as the suite started it
rm -f "$copy/src/redis-server"
ln -s "$snap/spinel-server" "$copy/src/redis-server"
cd "$copy"
rm -rf tests/tmp/*
exec tclsh tests/test_helper.tcl "${files[@]}" --clients 1 --timeout 300 "${extra[@]}"
