#!/usr/bin/env bash
# Restart time: how long after the broker process starts until a produce (acks=all) to every
# partition succeeds, with 1 GiB of data in 100 partitions, after a SIGKILL (recovery) and after a
# clean SIGTERM stop. Starts brook.jar on a temporary directory and loopback ports, fills it with
# Kafka's ProducerPerformance tool, and probes writability with io.brook.tests.tools.WritableProbe.
#
#   scripts/restart-time.sh            # builds first if brook.jar or the test classes are missing
#   PARTITIONS=100 RECORDS=1048576 RECORD_SIZE=1024 PORT=19192 scripts/restart-time.sh
#
# KEEP=1 keeps the data directory and the logs.
# Needs JDK 17+, Maven, and about 1.2 GB free under ${TMPDIR:-/tmp}. Takes a few minutes.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
JAR="$ROOT/brook-server/target/brook.jar"
TEST_CLASSES="$ROOT/brook-tests/target/test-classes"
CP_FILE="$ROOT/brook-tests/target/restart-time-classpath.txt"
PARTITIONS="${PARTITIONS:-100}"
RECORDS="${RECORDS:-1048576}"
RECORD_SIZE="${RECORD_SIZE:-1024}"
TOPIC=fill

if [ ! -f "$JAR" ] || [ ! -f "$TEST_CLASSES/io/brook/tests/tools/WritableProbe.class" ]; then
  echo "== building: mvn -B -q -DskipTests install"
  (cd "$ROOT" && mvn -B -q -DskipTests install)
fi
if [ ! -s "$CP_FILE" ] || [ "$ROOT/brook-tests/pom.xml" -nt "$CP_FILE" ]; then
  (cd "$ROOT" && mvn -B -q -f brook-tests/pom.xml dependency:build-classpath \
    -Dmdep.includeScope=test -Dmdep.outputFile="$CP_FILE")
fi
CP="$TEST_CLASSES:$(cat "$CP_FILE")"
JAVA="${JAVA_HOME:+$JAVA_HOME/bin/}java"
TOOL_JAVA=("$JAVA" -XX:TieredStopAtLevel=1 -Dlog4j2.configurationFile=log4j2-child.properties -cp "$CP")

PORT="${PORT:-19192}"
CONTROLLER_PORT="${CONTROLLER_PORT:-19193}"
if (exec 3<>"/dev/tcp/127.0.0.1/$PORT") 2>/dev/null; then
  echo "port $PORT is in use; set PORT=... (and CONTROLLER_PORT=...)" >&2
  exit 1
fi
BOOTSTRAP="127.0.0.1:$PORT"

WORK="$(mktemp -d "${TMPDIR:-/tmp}/brook-restart-time.XXXXXX")"
BROKER_PID=""
cleanup() {
  if [ -n "$BROKER_PID" ] && kill -0 "$BROKER_PID" 2>/dev/null; then
    kill -9 "$BROKER_PID" 2>/dev/null || true
    wait "$BROKER_PID" 2>/dev/null || true
  fi
  if [ -z "${KEEP:-}" ]; then rm -rf "$WORK"; else echo "kept $WORK"; fi
}
trap cleanup EXIT

cat >"$WORK/server.properties" <<PROPS
node.id=1
process.roles=broker,controller
listeners=PLAINTEXT://127.0.0.1:$PORT,CONTROLLER://127.0.0.1:$CONTROLLER_PORT
controller.listener.names=CONTROLLER
controller.quorum.voters=1@127.0.0.1:$CONTROLLER_PORT
log.dirs=$WORK/data
PROPS

now_ms() { date +%s%3N; }

# start_broker LOGFILE: starts brook.jar in the background; sets BROKER_PID and START_MS.
start_broker() {
  START_MS="$(now_ms)"
  "$JAVA" -jar "$JAR" server "$WORK/server.properties" >"$1" 2>&1 &
  BROKER_PID=$!
}

wait_ready() {
  local deadline=$((SECONDS + 300))
  until grep -qs "Brook is running" "$1"; do
    if ! kill -0 "$BROKER_PID" 2>/dev/null; then
      echo "broker exited:" >&2
      cat "$1" >&2
      exit 1
    fi
    if [ "$SECONDS" -gt "$deadline" ]; then
      echo "broker not ready after 300 s" >&2
      exit 1
    fi
    sleep 0.1
  done
}

# probe LABEL LOGFILE: restarts the broker and measures until every partition takes a write.
probe() {
  local label="$1" log="$2" line seconds started
  start_broker "$log"
  line="$("${TOOL_JAVA[@]}" io.brook.tests.tools.WritableProbe "$BOOTSTRAP" "$TOPIC" "$PARTITIONS" "$START_MS" 2>>"$WORK/probe.log")"
  seconds="${line##*seconds=}"
  started="$(grep -o 'Brook started.*durationMs=[0-9]*' "$log" | grep -o '[0-9]*$' || echo '?')"
  echo "$label: writable after ${seconds} s (broker's own start-up: ${started} ms)"
  grep -E 'not shut down cleanly|Loaded logs' "$log" | sed 's/^/    /' || true
  RESULTS+=("$label|$seconds|$started")
}

RESULTS=()
echo "== data: $WORK/data, bootstrap $BOOTSTRAP"
start_broker "$WORK/broker-fill.log"
wait_ready "$WORK/broker-fill.log"
"${TOOL_JAVA[@]}" org.apache.kafka.tools.TopicCommand --bootstrap-server "$BOOTSTRAP" --create \
  --topic "$TOPIC" --partitions "$PARTITIONS" --replication-factor 1
echo "== filling: $RECORDS records of $RECORD_SIZE bytes over $PARTITIONS partitions"
"${TOOL_JAVA[@]}" org.apache.kafka.tools.ProducerPerformance --topic "$TOPIC" \
  --num-records "$RECORDS" --record-size "$RECORD_SIZE" --throughput -1 \
  --command-property bootstrap.servers="$BOOTSTRAP" acks=1 linger.ms=10 batch.size=262144 \
  | tail -n 1
echo "== on disk: $(du -sh "$WORK/data" | cut -f1)"

# What the probe itself costs (JVM start, client set-up, one round of produces) on a broker that is
# already up: the floor under the numbers below.
FLOOR_LINE="$("${TOOL_JAVA[@]}" io.brook.tests.tools.WritableProbe "$BOOTSTRAP" "$TOPIC" "$PARTITIONS" "$(now_ms)" 2>>"$WORK/probe.log")"
FLOOR="${FLOOR_LINE##*seconds=}"
echo "== probe against the running broker (client-side floor): ${FLOOR} s"

echo "== SIGKILL"
kill -9 "$BROKER_PID"
wait "$BROKER_PID" || true
probe "after SIGKILL" "$WORK/broker-after-kill.log"

echo "== SIGTERM"
STOP_MS="$(now_ms)"
kill -TERM "$BROKER_PID"
STATUS=0
wait "$BROKER_PID" || STATUS=$?
echo "clean stop took $(( $(now_ms) - STOP_MS )) ms, exit status $STATUS"
probe "after SIGTERM" "$WORK/broker-after-term.log"

kill -TERM "$BROKER_PID"
wait "$BROKER_PID" || true
BROKER_PID=""

echo
echo "| restart | writable after (s) | broker start-up (ms) |"
echo "|---|---|---|"
echo "| (probe alone, broker already up) | $FLOOR | - |"
for r in "${RESULTS[@]}"; do
  IFS='|' read -r label seconds started <<<"$r"
  echo "| $label | $seconds | $started |"
done
