#!/usr/bin/env bash
# Side-by-side benchmark of Brook against Apache Kafka with the shared harness (../shared/bench):
# both brokers single-node on loopback, same JVM heap and GC flags, runs interleaved A,B,A,B,...
#   scripts/bench-vs-kafka.sh                  env: ROUNDS (5), WORKLOADS, RECORDS (1000000),
#                                              BENCH (path to the harness, default ../shared/bench)
# Prints the harness report (medians, B/A ratios; A = Kafka, B = Brook) and keeps it in
# $BENCH/results/compare-*.txt. Use MAX_OTHER_CPU=0.25 to keep only quiet samples.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BENCH="${BENCH:-$ROOT/../shared/bench}"
KAFKA_PORT="${KAFKA_PORT:-39092}"
BROOK_PORT="${BROOK_PORT:-49092}"
DATA="${TMPDIR:-/tmp}/bench-brook-$BROOK_PORT"
export ROUNDS="${ROUNDS:-5}"
export RECORDS="${RECORDS:-1000000}"
export WORKLOADS="${WORKLOADS:-produce-acks1-1k produce-acksall-1k produce-lz4-json e2e-5k}"
export LABEL_A=kafka LABEL_B=brook

[ -f "$ROOT/brook-server/target/brook.jar" ] || (cd "$ROOT" && mvn -B -q -DskipTests package -pl brook-server -am)

rm -rf "$DATA"; mkdir -p "$DATA"
cat > "$DATA/server.properties" <<PROPS
node.id=1
process.roles=broker,controller
listeners=PLAINTEXT://127.0.0.1:$BROOK_PORT,CONTROLLER://127.0.0.1:$((BROOK_PORT + 1))
advertised.listeners=PLAINTEXT://127.0.0.1:$BROOK_PORT
controller.listener.names=CONTROLLER
controller.quorum.voters=1@127.0.0.1:$((BROOK_PORT + 1))
log.dirs=$DATA/data
num.partitions=6
offsets.topic.replication.factor=1
transaction.state.log.replication.factor=1
transaction.state.log.min.isr=1
group.initial.rebalance.delay.ms=0
PROPS
# Same heap and GC flags as the harness gives Kafka (kafka-server-start.sh defaults).
java -Xms1g -Xmx1g -server -XX:+UseG1GC -XX:MaxGCPauseMillis=20 -XX:InitiatingHeapOccupancyPercent=35 \
  -XX:+ExplicitGCInvokesConcurrent -XX:MaxInlineLevel=15 -Djava.awt.headless=true \
  -jar "$ROOT/brook-server/target/brook.jar" server "$DATA/server.properties" > "$DATA/broker.log" 2>&1 &
BROOK_PID=$!
trap 'kill $BROOK_PID 2>/dev/null || true; "$BENCH/stop-kafka.sh" $KAFKA_PORT >/dev/null 2>&1 || true' EXIT
"$BENCH/start-kafka.sh" $KAFKA_PORT >&2
for _ in $(seq 1 60); do
  (exec 3<>"/dev/tcp/127.0.0.1/$BROOK_PORT") 2>/dev/null && break
  sleep 0.5
done
BROKER_PID="" "$BENCH/compare.sh" "127.0.0.1:$KAFKA_PORT" "127.0.0.1:$BROOK_PORT"
