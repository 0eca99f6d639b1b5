# Sourced by the replicated benchmarks (bench-replicated.sh, bench-transactions.sh): starts three
# combined nodes of Brook or of Apache Kafka (separate JVMs, loopback ports, same heap and GC
# flags), creates topics with replication factor 3 and min.insync.replicas=2, counts the brokers'
# CPU time and prints median ratios. Needs ROOT (the checkout), PARTITIONS and RESULTS (the result
# file) set by the caller; BENCH, BASE_PORT and HEAP may be overridden from the environment.

BENCH="${BENCH:-$ROOT/../shared/bench}"
JAR="$ROOT/brook-server/target/brook.jar"
TEST_CLASSES="$ROOT/brook-tests/target/test-classes"
CP_FILE="$ROOT/brook-tests/target/cluster-bench-classpath.txt"
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


# Median of every field per broker and workload over the rounds in $RESULTS, with brook / kafka.
print_medians() {
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
}
