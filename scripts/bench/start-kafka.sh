#!/usr/bin/env bash
# Start the Apache Kafka reference broker: single-node KRaft (combined broker+controller), loopback only,
# throw-away data dir, 1 GiB heap, stock JVM flags of kafka-server-start.sh, otherwise default configs.
#   ./start-kafka.sh [PORT]          (default 19092; controller listener on PORT+1)
# env: KAFKA_VERSION (default: pom.xml), KAFKA_DATA_DIR (default ${TMPDIR:-/tmp}/bench-kafka-PORT),
#      KAFKA_HEAP_OPTS (default -Xms1g -Xmx1g), JAVA_HOME, EXTRA_BROKER_PROPS (file appended to the config)
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/common.sh"
PORT="${1:-19092}"
CPORT="${CONTROLLER_PORT:-$((PORT + 1))}"
DATA="${KAFKA_DATA_DIR:-${TMPDIR:-/tmp}/bench-kafka-$PORT}"
ensure_jars

if [ -f "$DATA/kafka.pid" ] && kill -0 "$(cat "$DATA/kafka.pid")" 2>/dev/null; then
  echo "a broker is already running for port $PORT (pid $(cat "$DATA/kafka.pid")); run ./stop-kafka.sh $PORT" >&2; exit 1
fi
if (exec 3<>"/dev/tcp/127.0.0.1/$PORT") 2>/dev/null; then echo "port $PORT is already in use" >&2; exit 1; fi

rm -rf "$DATA"; mkdir -p "$DATA/data" "$DATA/logs"
cat > "$DATA/server.properties" <<PROPS
process.roles=broker,controller
node.id=1
controller.quorum.bootstrap.servers=127.0.0.1:$CPORT
listeners=PLAINTEXT://127.0.0.1:$PORT,CONTROLLER://127.0.0.1:$CPORT
advertised.listeners=PLAINTEXT://127.0.0.1:$PORT
controller.listener.names=CONTROLLER
inter.broker.listener.name=PLAINTEXT
listener.security.protocol.map=CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT
log.dirs=$DATA/data
num.partitions=6
# single node: internal topics with replication factor 1
offsets.topic.replication.factor=1
transaction.state.log.replication.factor=1
transaction.state.log.min.isr=1
share.coordinator.state.topic.replication.factor=1
share.coordinator.state.topic.min.isr=1
# benchmarks join groups repeatedly; do not wait 3 s for more members
group.initial.rebalance.delay.ms=0
# everything else (threads, flush policy = no explicit fsync, segment size, ...) is left at the defaults
PROPS
if [ -n "${EXTRA_BROKER_PROPS:-}" ]; then cat "$EXTRA_BROKER_PROPS" >> "$DATA/server.properties"; fi

LOGOPTS="-Dlog4j2.configurationFile=$BENCH_DIR/config/log4j2-broker.properties -Dkafka.logs.dir=$DATA/logs"
CLUSTER_ID="$("$JAVA" -cp "$CP" $LOGOPTS kafka.tools.StorageTool random-uuid 2>/dev/null | tail -1)"
"$JAVA" -cp "$CP" $LOGOPTS kafka.tools.StorageTool format --config "$DATA/server.properties" \
  --cluster-id "$CLUSTER_ID" --standalone > "$DATA/logs/format.log" 2>&1 \
  || { cat "$DATA/logs/format.log" >&2; exit 1; }

HEAP="${KAFKA_HEAP_OPTS:--Xms1g -Xmx1g}"
# same as kafka-run-class.sh / kafka-server-start.sh defaults
PERF="-server -XX:+UseG1GC -XX:MaxGCPauseMillis=20 -XX:InitiatingHeapOccupancyPercent=35 -XX:+ExplicitGCInvokesConcurrent -XX:MaxInlineLevel=15 -Djava.awt.headless=true"
GCLOG="-Xlog:gc*:file=$DATA/logs/kafkaServer-gc.log:time,tags:filecount=4,filesize=20M"
nohup "$JAVA" $HEAP $PERF $GCLOG $LOGOPTS -cp "$CP" kafka.Kafka "$DATA/server.properties" \
  > "$DATA/logs/stdout.log" 2>&1 < /dev/null &
PID=$!
echo "$PID" > "$DATA/kafka.pid"

for _ in $(seq 1 120); do
  if ! kill -0 "$PID" 2>/dev/null; then
    echo "broker exited during startup; see $DATA/logs" >&2; tail -20 "$DATA/logs/stdout.log" "$DATA/logs/server.log" >&2 || true; exit 1
  fi
  if grep -q "Kafka Server started" "$DATA/logs/server.log" 2>/dev/null \
     && (exec 3<>"/dev/tcp/127.0.0.1/$PORT") 2>/dev/null; then
    echo "Apache Kafka $KAFKA_VERSION started: bootstrap=127.0.0.1:$PORT pid=$PID data=$DATA"
    exit 0
  fi
  sleep 0.5
done
echo "broker did not become ready in 60 s; see $DATA/logs (pid $PID still running; ./stop-kafka.sh $PORT)" >&2
exit 1
