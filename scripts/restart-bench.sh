#!/usr/bin/env bash
# Restart bench at many partitions: how long one node takes to list and serve every partition again
# after a clean stop and after a SIGKILL, and how long of that it spends loading logs.
#
# Starts brook-server/target/brook.jar as a single combined node on a temporary directory and
# loopback ports, creates TOPICS topics of PARTITIONS partitions (default 2,000 x 12 = 24,000),
# produces RECORDS records (100 bytes) to every partition, then RUNS times each: (a) SIGTERM and
# restart, (b) SIGKILL and restart. The client is scripts/bench/RestartBenchClient.java (with
# BenchClients.java), compiled once with javac against kafka-clients from ~/.m2 (nothing else to
# build). For each restart it prints:
#   listed   seconds from the broker's start until Metadata names every partition with a leader
#   serving  seconds until a record produced (acks=all) to partition 0 of every 100th topic is
#            read back by a consumer
#   loadMs   the broker's own "Loaded logs ... durationMs" (loading and recovering the logs)
# and the median of each. PROFILE=1 records a JFR file of every SIGKILL restart (kept with KEEP=1;
# summarize with `jfr print --events jdk.ExecutionSample FILE` or `jfr view hot-methods FILE`).
#
#   mvn -o -B -q -pl brook-server -am package -DskipTests     # once, builds brook.jar
#   scripts/restart-bench.sh
#   TOPICS=200 PARTITIONS=12 RECORDS=2 RUNS=3 PORT=19292 PROFILE=1 KEEP=1 scripts/restart-bench.sh
#
# Needs JDK 17+, `ulimit -n` well above the partition count's open files (brook.log.max.open.files
# bounds segment files), and a few GB free under ${TMPDIR:-/tmp}.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
JAR="${JAR:-$ROOT/brook-server/target/brook.jar}"
TOPICS="${TOPICS:-2000}"
PARTITIONS="${PARTITIONS:-12}"
RECORDS="${RECORDS:-2}"
RUNS="${RUNS:-3}"
PORT="${PORT:-19292}"
CONTROLLER_PORT="${CONTROLLER_PORT:-$((PORT + 1))}"
BROKER_OPTS="${BROKER_OPTS:-}"
M2="${M2_REPO:-$HOME/.m2/repository}"
CLIENT_CP="$M2/org/apache/kafka/kafka-clients/4.4.0/kafka-clients-4.4.0.jar:$M2/org/slf4j/slf4j-api/1.7.36/slf4j-api-1.7.36.jar"
JAVA="${JAVA_HOME:+$JAVA_HOME/bin/}java"
JAVAC="${JAVA_HOME:+$JAVA_HOME/bin/}javac"
BOOTSTRAP="127.0.0.1:$PORT"

[ -f "$JAR" ] || { echo "missing $JAR: mvn -o -B -q -pl brook-server -am package -DskipTests" >&2; exit 1; }
if (exec 3<>"/dev/tcp/127.0.0.1/$PORT") 2>/dev/null; then
  echo "port $PORT is in use; set PORT=..." >&2
  exit 1
fi

WORK="$(mktemp -d "${TMPDIR:-/tmp}/brook-restart-bench.XXXXXX")"
BROKER_PID=""
cleanup() {
  if [ -n "$BROKER_PID" ] && kill -0 "$BROKER_PID" 2>/dev/null; then
    kill -9 "$BROKER_PID" 2>/dev/null || true
    wait "$BROKER_PID" 2>/dev/null || true
  fi
  if [ -z "${KEEP:-}" ]; then rm -rf "$WORK"; else echo "kept $WORK"; fi
}
trap cleanup EXIT

mkdir -p "$WORK/client"
"$JAVAC" -nowarn -d "$WORK/client" -cp "$CLIENT_CP" \
  "$ROOT/scripts/bench/RestartBenchClient.java" "$ROOT/scripts/bench/BenchClients.java"
CLIENT=("$JAVA" -XX:TieredStopAtLevel=1 -cp "$WORK/client:$CLIENT_CP" RestartBenchClient)

cat >"$WORK/server.properties" <<PROPS
node.id=1
process.roles=broker,controller
listeners=PLAINTEXT://127.0.0.1:$PORT,CONTROLLER://127.0.0.1:$CONTROLLER_PORT
controller.listener.names=CONTROLLER
controller.quorum.voters=1@127.0.0.1:$CONTROLLER_PORT
log.dirs=$WORK/data
PROPS

now_ms() { date +%s%3N; }

# start_broker LOGFILE [JFRFILE]
start_broker() {
  local opts=($BROKER_OPTS)
  if [ -n "${2:-}" ]; then opts+=("-XX:StartFlightRecording=filename=$2,settings=profile"); fi
  START_MS="$(now_ms)"
  "$JAVA" "${opts[@]}" -jar "$JAR" server "$WORK/server.properties" >"$1" 2>&1 &
  BROKER_PID=$!
}

stop_broker() { # SIGNAL
  kill "-$1" "$BROKER_PID"
  wait "$BROKER_PID" || true
  BROKER_PID=""
}

median() { sort -g | awk '{a[NR]=$1} END {print (NR ? a[int((NR+1)/2)] : "?")}'; }

# restart LABEL N: starts the broker and measures until it lists and serves everything.
restart() {
  local label="$1" n="$2" log="$WORK/broker-$1-$2.log" jfr="" line load
  if [ "$label" = kill ] && [ -n "${PROFILE:-}" ]; then jfr="$WORK/kill-$n.jfr"; fi
  start_broker "$log" "$jfr"
  line="$("${CLIENT[@]}" probe "$BOOTSTRAP" "$TOPICS" "$PARTITIONS" "$START_MS" 2>>"$WORK/client.log")"
  load="$(grep -o 'Loaded logs.*durationMs=[0-9]*' "$log" | grep -o '[0-9]*$' | head -1 || echo '?')"
  echo "$label #$n: $line loadMs=$load"
  echo "$label ${line#listed=} $load" | sed 's/ serving=/ /' >>"$WORK/results"
}

echo "== data: $WORK/data, bootstrap $BOOTSTRAP, $TOPICS topics x $PARTITIONS partitions"
start_broker "$WORK/broker-setup.log"
"${CLIENT[@]}" setup "$BOOTSTRAP" "$TOPICS" "$PARTITIONS" "$RECORDS" 2>>"$WORK/client.log"
echo "== on disk: $(du -sh "$WORK/data" | cut -f1)"
: >"$WORK/results"
for n in $(seq 1 "$RUNS"); do
  stop_broker TERM
  restart clean "$n"
  stop_broker KILL
  restart kill "$n"
done
stop_broker TERM

echo
echo "| restart ($TOPICS x $PARTITIONS, median of $RUNS) | listed (s) | serving (s) | loading logs (ms) |"
echo "|---|---|---|---|"
for label in clean kill; do
  l="$(awk -v k="$label" '$1==k {print $2}' "$WORK/results" | median)"
  s="$(awk -v k="$label" '$1==k {print $3}' "$WORK/results" | median)"
  d="$(awk -v k="$label" '$1==k {print $4}' "$WORK/results" | median)"
  echo "| $label | $l | $s | $d |"
done
