# Helpers sourced by the side-by-side scripts in bench/.

# wait_for_server NAME PORT PID LOG: returns once the server answers PING. Exits the script, showing
# the end of the server's output, when the process ends first (a JVM option in SPINEL_JAVA_OPTS the
# JVM refuses, a bad server option) or after 10 minutes (./spinel-server's first build on a fresh
# machine included): redis-benchmark would otherwise retry a closed port forever.
wait_for_server() {
  local name=$1 port=$2 pid=$3 log=$4
  for _ in $(seq 1 12000); do
    [[ "$(redis-cli -p "$port" ping 2>/dev/null)" == PONG ]] && return 0
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.05
  done
  echo "$name did not answer PING on port $port; its output:" >&2
  tail -20 "$log" >&2
  exit 1
}

# free_port: a TCP port nothing listens on now (the kernel's pick), for a server to take.
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

# need_redis_tools: stops the script unless redis-server and redis-benchmark are installed.
need_redis_tools() {
  command -v redis-server >/dev/null && command -v redis-benchmark >/dev/null || {
    echo "needs redis-server and redis-benchmark (apt-get install redis-server redis-tools)" >&2; exit 2; }
}
