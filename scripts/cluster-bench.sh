#!/usr/bin/env bash
# Cluster figures on one machine: three combined nodes (brook.jar, separate JVMs, loopback ports).
#  1. time to create TOPICS topics x PARTITIONS partitions (replication factor RF), and until every
#     broker serves all of them;
#  2. restart of one node (SIGTERM, start again on its data): its start-up until unfenced;
#  3. controller failover: SIGKILL the active controller, time until a topic creation through
#     another broker succeeds.
#
#   scripts/cluster-bench.sh                       # 2,000 x 12, RF=1
#   TOPICS=200 PARTITIONS=12 RF=3 scripts/cluster-bench.sh
#
# Build first: mvn -B -DskipTests verify (brook.jar and brook-tests' test classes).
# KEEP=1 keeps the data and logs.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
JAR="$ROOT/brook-server/target/brook.jar"
TEST_CLASSES="$ROOT/brook-tests/target/test-classes"
CP_FILE="$ROOT/brook-tests/target/cluster-bench-classpath.txt"
TOPICS="${TOPICS:-2000}"
PARTITIONS="${PARTITIONS:-12}"
RF="${RF:-1}"
BASE_PORT="${BASE_PORT:-19300}"

if [ ! -f "$JAR" ] || [ ! -f "$TEST_CLASSES/io/brook/tests/tools/ClusterBench.class" ]; then
  echo "build first: mvn -B -DskipTests verify" >&2
  exit 1
fi
if [ ! -s "$CP_FILE" ] || [ "$ROOT/brook-tests/pom.xml" -nt "$CP_FILE" ]; then
  (cd "$ROOT" && mvn -o -B -q -f brook-tests/pom.xml dependency:build-classpath \
    -Dmdep.includeScope=test -Dmdep.outputFile="$CP_FILE")
fi
CP="$TEST_CLASSES:$(cat "$CP_FILE")"
JAVA="${JAVA_HOME:+$JAVA_HOME/bin/}java"
TOOL=("$JAVA" -Dlog4j2.configurationFile=log4j2-child.properties -cp "$CP" io.brook.tests.tools.ClusterBench)

WORK="$(mktemp -d "${TMPDIR:-/tmp}/brook-cluster-bench.XXXXXX")"
PIDS=()
cleanup() {
  for pid in "${PIDS[@]}"; do kill -9 "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
  if [ -z "${KEEP:-}" ]; then rm -rf "$WORK"; else echo "kept $WORK"; fi
}
trap cleanup EXIT

VOTERS="1@127.0.0.1:$((BASE_PORT + 11)),2@127.0.0.1:$((BASE_PORT + 21)),3@127.0.0.1:$((BASE_PORT + 31))"
BROKERS="127.0.0.1:$((BASE_PORT + 10)),127.0.0.1:$((BASE_PORT + 20)),127.0.0.1:$((BASE_PORT + 30))"
ID_PIDS=""
for id in 1 2 3; do
  port=$((BASE_PORT + id * 10))
  cat >"$WORK/server-$id.properties" <<PROPS
node.id=$id
process.roles=broker,controller
listeners=PLAINTEXT://127.0.0.1:$port,CONTROLLER://127.0.0.1:$((port + 1))
advertised.listeners=PLAINTEXT://127.0.0.1:$port
controller.listener.names=CONTROLLER
controller.quorum.voters=$VOTERS
log.dirs=$WORK/data-$id
PROPS
  "$JAVA" -Xmx2g -jar "$JAR" server "$WORK/server-$id.properties" >"$WORK/node-$id.log" 2>&1 &
  PIDS+=($!)
  ID_PIDS="$ID_PIDS${ID_PIDS:+,}$id:$!"
done
for id in 1 2 3; do
  until grep -qs "Brook is running" "$WORK/node-$id.log"; do sleep 0.1; done
done
echo "== 3 nodes up ($WORK)"
for id in 1 2 3; do grep -o 'Brook started.*durationMs=[0-9]*' "$WORK/node-$id.log" | sed 's/.*durationMs=/start-up ms: /'; done

echo "== creating $TOPICS topics x $PARTITIONS partitions, replication factor $RF"
"${TOOL[@]}" create "$BROKERS" "$TOPICS" "$PARTITIONS" "$RF"
for id in 1 2 3; do
  echo "node $id: RSS $(ps -o rss= -p "${PIDS[$((id - 1))]}") KiB, open files $(ls /proc/"${PIDS[$((id - 1))]}"/fd | wc -l)"
done

echo "== restart of node 3 (SIGTERM, then start on its data): start-up until registered and unfenced"
kill -TERM "${PIDS[2]}"
wait "${PIDS[2]}" 2>/dev/null || true
"$JAVA" -Xmx2g -jar "$JAR" server "$WORK/server-3.properties" >"$WORK/node-3-restart.log" 2>&1 &
PIDS[2]=$!
ID_PIDS="1:${PIDS[0]},2:${PIDS[1]},3:${PIDS[2]}"
until grep -qs "Brook is running" "$WORK/node-3-restart.log"; do sleep 0.1; done
grep -o 'Brook started.*durationMs=[0-9]*' "$WORK/node-3-restart.log" | sed 's/.*durationMs=/node 3 restart start-up ms: /'
grep -o 'Loaded logs count=[0-9]* .*durationMs=[0-9]*' "$WORK/node-3-restart.log" || true

echo "== controller failover"
"${TOOL[@]}" failover "$BROKERS" "$ID_PIDS"
