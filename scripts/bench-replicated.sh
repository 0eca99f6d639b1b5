#!/usr/bin/env bash
# Replicated produce, Brook against Apache Kafka: three combined nodes (separate JVMs, loopback
# ports, same heap and GC flags), a topic with replication factor 3 and min.insync.replicas=2, and
# Kafka's own ProducerPerformance with acks=all (the idempotent producer, the client default).
# Rounds are interleaved (kafka, brook, kafka, brook, ...), each on a fresh cluster with a warm-up
# run first. Two workloads per run:
#   max      RECORDS records as fast as the producer can send: records/s and MB/s (its latencies
#            are mostly time queued in the producer, so compare them with care);
#   rate     RATE records/s for RATE_SECS seconds: p50/p99/p99.9 send->ack latency at a load both
#            brokers sustain.
# Each line also has the CPU seconds the three broker processes spent on that workload (the
# steadiest figure on a noisy machine).
#
#   scripts/bench-replicated.sh        env: ROUNDS (5), RECORDS (1000000), RECORD_SIZE (1024),
#                                           RATE (5000), RATE_SECS (20), PARTITIONS (6),
#                                           LINGER_MS (5), BENCH (../shared/bench)
#
# Build first: mvn -B -DskipTests verify (brook.jar and brook-tests' test classes).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BENCH="${BENCH:-$ROOT/../shared/bench}"
JAR="$ROOT/brook-server/target/brook.jar"
TEST_CLASSES="$ROOT/brook-tests/target/test-classes"
CP_FILE="$ROOT/brook-tests/target/cluster-bench-classpath.txt"
ROUNDS="${ROUNDS:-5}"
RECORDS="${RECORDS:-1000000}"
RECORD_SIZE="${RECORD_SIZE:-1024}"
PARTITIONS="${PARTITIONS:-6}"
LINGER_MS="${LINGER_MS:-5}"
RATE="${RATE:-5000}"
RATE_SECS="${RATE_SECS:-20}"
BASE_PORT="${BASE_PORT:-19500}"
HEAP="${HEAP:--Xms1g -Xmx1g}"
JVM_FLAGS="-server -XX:+UseG1GC -XX:MaxGCPauseMillis=20 -XX:InitiatingHeapOccupancyPercent=35 -XX:+ExplicitGCInvokesConcurrent -XX:MaxInlineLevel=15 -Djava.awt.headless=true"

if [ ! -f "$JAR" ] || [ ! -f "$TEST_CLASSES/io/brook/tests/tools/ClusterBench.class" ]; then
  echo "build first: mvn -B -DskipTests verify" >&2
  exit 1
fi
if [ ! -s "$CP_FILE" ] || [ "$ROOT/brook-tests/pom.xml" -nt "$CP_FILE" ]; then
  (cd "$ROOT" && mvn -o -B -q -f brook-tests/pom.xml dependency:build-classpath \
    -Dmdep.includeScope=test -Dmdep.outputFile="$CP_FILE")
fi
JAVA="${JAVA_HOME:+$JAVA_HOME/bin/}java"
TOOL=("$JAVA" -Dlog4j2.configurationFile=log4j2-child.properties -cp "$TEST_CLASSES:$(cat "$CP_FILE")" io.brook.tests.tools.ClusterBench)
# shellcheck source=/dev/null
. "$BENCH/common.sh"
ensure_jars
KAFKA_CP="$LIB_DIR/*"
KJAVA=("$JAVA" -Dlog4j2.configurationFile="$BENCH/config/log4j2-tools.properties" -cp "$KAFKA_CP")

RESULTS="$ROOT/target/bench-replicated-$(date +%Y%m%d-%H%M%S).txt"
mkdir -p "$ROOT/target"
WORK=""
declare -A PIDS
stop_cluster() {
  for pid in "${PIDS[@]}"; do kill -9 "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
  PIDS=()
  [ -n "$WORK" ] && rm -rf "$WORK"
  WORK=""
}
trap stop_cluster EXIT

VOTERS="1@127.0.0.1:$((BASE_PORT + 11)),2@127.0.0.1:$((BASE_PORT + 21)),3@127.0.0.1:$((BASE_PORT + 31))"
BROKERS="127.0.0.1:$((BASE_PORT + 10)),127.0.0.1:$((BASE_PORT + 20)),127.0.0.1:$((BASE_PORT + 30))"

start_cluster() { # broker
  local broker=$1 id port
  WORK="$(mktemp -d "${TMPDIR:-/tmp}/$broker-replicated-bench.XXXXXX")"
  local cluster_id
  cluster_id="$("${TOOL[@]}" uuid)"
  for id in 1 2 3; do
    port=$((BASE_PORT + id * 10))
    cat >"$WORK/server-$id.properties" <<PROPS
node.id=$id
process.roles=broker,controller
listeners=PLAINTEXT://127.0.0.1:$port,CONTROLLER://127.0.0.1:$((port + 1))
advertised.listeners=PLAINTEXT://127.0.0.1:$port
controller.listener.names=CONTROLLER
inter.broker.listener.name=PLAINTEXT
listener.security.protocol.map=CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT
controller.quorum.voters=$VOTERS
log.dirs=$WORK/data-$id
PROPS
    if [ "$broker" = kafka ]; then
      "${KJAVA[@]}" kafka.tools.StorageTool format --config "$WORK/server-$id.properties" \
        --cluster-id "$cluster_id" >"$WORK/format-$id.log" 2>&1
    fi
  done
  for id in 1 2 3; do
    if [ "$broker" = kafka ]; then
      # shellcheck disable=SC2086
      "$JAVA" $HEAP $JVM_FLAGS -Dlog4j2.configurationFile="$BENCH/config/log4j2-broker.properties" \
        -Dkafka.logs.dir="$WORK/logs-$id" -cp "$KAFKA_CP" kafka.Kafka "$WORK/server-$id.properties" \
        >"$WORK/node-$id.log" 2>&1 &
    else
      # shellcheck disable=SC2086
      "$JAVA" $HEAP $JVM_FLAGS -jar "$JAR" server "$WORK/server-$id.properties" >"$WORK/node-$id.log" 2>&1 &
    fi
    PIDS[$id]=$!
  done
  "${TOOL[@]}" await-brokers "$BROKERS" 3 "$(date +%s%3N)" >/dev/null
}

create_topic() { # name
  "${KJAVA[@]}" org.apache.kafka.tools.TopicCommand --bootstrap-server "$BROKERS" --create \
    --topic "$1" --partitions "$PARTITIONS" --replication-factor 3 \
    --config min.insync.replicas=2 >"$WORK/topic-$1.log" 2>&1
}

broker_ticks() {
  local total=0 pid
  for pid in "${PIDS[@]}"; do
    total=$((total + $(awk '{print $14 + $15}' "/proc/$pid/stat")))
  done
  echo "$total"
}

produce() { # topic records throughput
  "${KJAVA[@]}" org.apache.kafka.tools.ProducerPerformance --topic "$1" --num-records "$2" \
    --record-size "$RECORD_SIZE" --throughput "$3" \
    --producer-props bootstrap.servers="$BROKERS" acks=all linger.ms="$LINGER_MS" 2>&1 | tail -1
}

measure() { # broker round workload topic records throughput
  local before after line
  before=$(broker_ticks)
  line="$(produce "$4" "$5" "$6")"
  after=$(broker_ticks)
  # "N records sent, R records/sec (M MB/sec), A ms avg latency, X ms max latency, P50 ms 50th, P95 ms 95th, P99 ms 99th, P999 ms 99.9th."
  echo "$line" | awk -v b="$1" -v r="$2" -v w="$3" -v cpu="$((after - before))" -v hz="$(getconf CLK_TCK)" '{
    gsub(/[(),]/, "");
    printf "%s %s round=%s records_per_s=%s mb_per_s=%s p50_ms=%s p99_ms=%s p999_ms=%s broker_cpu_s=%.1f\n",
      b, w, r, $4, $6, $16, $22, $25, cpu / hz }' | tee -a "$RESULTS"
}

run_once() { # broker round
  start_cluster "$1"
  create_topic warmup
  create_topic measured
  create_topic latency
  produce warmup $((RECORDS / 4)) -1 >/dev/null
  measure "$1" "$2" max measured "$RECORDS" -1
  measure "$1" "$2" rate latency $((RATE * RATE_SECS)) "$RATE"
  stop_cluster
}

for round in $(seq 1 "$ROUNDS"); do
  run_once kafka "$round"
  run_once brook "$round"
done

echo "== medians over $ROUNDS rounds (ratio = brook / kafka)"
awk '
  { split($0, f, " "); b = f[1];
    for (i = 4; i <= NF; i++) { k = f[2] "." substr(f[i], 1, index(f[i], "=") - 1);
      v[b, k, ++n[b, k]] = substr(f[i], index(f[i], "=") + 1); keys[k] = 1 } }
  function median(b, k,   m, i, j, t, a) {
    m = n[b, k]; for (i = 1; i <= m; i++) a[i] = v[b, k, i];
    for (i = 1; i <= m; i++) for (j = i + 1; j <= m; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
    return m % 2 ? a[(m + 1) / 2] : (a[m / 2] + a[m / 2 + 1]) / 2 }
  END { for (k in keys) { ka = median("kafka", k); kb = median("brook", k);
    printf "%-20s kafka=%-10s brook=%-10s ratio=%.2f\n", k, ka, kb, (ka > 0 ? kb / ka : 0) } }' "$RESULTS" | sort
echo "(all runs in $RESULTS)"
