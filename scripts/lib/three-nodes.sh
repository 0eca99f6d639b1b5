# Sourced by the three-node benchmarks (cluster-bench.sh and, through replicated-cluster.sh,
# bench-replicated.sh and bench-transactions.sh): three combined broker+controller nodes of Brook
# (brook.jar) or of Apache Kafka (the jars scripts/bench/setup.sh fetches) on loopback, node N
# listening on BASE_PORT + 10N (clients) and + 1 (controller), with the same heap and GC flags for
# both.
# Needs ROOT (the checkout); BENCH, BASE_PORT and HEAP may be set by the caller or the environment.
# Defines BROKERS (the bootstrap list), TOOL (ClusterBench) and, after use_kafka_jars, KAFKA_CP
# and KJAVA (Kafka's tools).

BENCH="${BENCH:-$ROOT/scripts/bench}"
JAR="$ROOT/brook-server/target/brook.jar"
TEST_CLASSES="$ROOT/brook-tests/target/test-classes"
CP_FILE="$ROOT/brook-tests/target/cluster-bench-classpath.txt"
BASE_PORT="${BASE_PORT:-19500}"
HEAP="${HEAP:--Xms1g -Xmx1g}"
# kafka-server-start.sh's defaults, for both brokers
JVM_FLAGS="-server -XX:+UseG1GC -XX:MaxGCPauseMillis=20 -XX:InitiatingHeapOccupancyPercent=35 -XX:+ExplicitGCInvokesConcurrent -XX:MaxInlineLevel=15 -Djava.awt.headless=true"

if [ ! -f "$JAR" ] || [ ! -f "$TEST_CLASSES/io/brook/tests/tools/ClusterBench.class" ]; then
  echo "build first: mvn -B -DskipTests verify" >&2
  exit 1
fi
if [ ! -s "$CP_FILE" ] || [ "$ROOT/brook-tests/pom.xml" -nt "$CP_FILE" ]; then
  (cd "$ROOT" && mvn -B -q -f brook-tests/pom.xml dependency:build-classpath \
    -Dmdep.includeScope=test -Dmdep.outputFile="$CP_FILE")
fi
JAVA="${JAVA_HOME:+$JAVA_HOME/bin/}java"
TEST_CP="$TEST_CLASSES:$(cat "$CP_FILE")"
TOOL=("$JAVA" -Dlog4j2.configurationFile=log4j2-child.properties -cp "$TEST_CP" io.brook.tests.tools.ClusterBench)

VOTERS="1@127.0.0.1:$((BASE_PORT + 11)),2@127.0.0.1:$((BASE_PORT + 21)),3@127.0.0.1:$((BASE_PORT + 31))"
BROKERS="127.0.0.1:$((BASE_PORT + 10)),127.0.0.1:$((BASE_PORT + 20)),127.0.0.1:$((BASE_PORT + 30))"

# Fetches Kafka's jars (once) through the benchmark harness (scripts/bench).
use_kafka_jars() {
  # shellcheck source=/dev/null
  . "$BENCH/common.sh"
  ensure_jars
  KAFKA_CP="$LIB_DIR/*"
  KJAVA=("$JAVA" -Dlog4j2.configurationFile="$BENCH/config/log4j2-tools.properties" -cp "$KAFKA_CP")
}

# Writes node $2's properties file in directory $1; Kafka's nodes are also formatted with
# cluster id $4 (Brook needs no format step).
write_node_config() { # dir id broker cluster-id
  local dir=$1 id=$2 port=$((BASE_PORT + $2 * 10))
  cat >"$dir/server-$id.properties" <<PROPS
node.id=$id
process.roles=broker,controller
listeners=PLAINTEXT://127.0.0.1:$port,CONTROLLER://127.0.0.1:$((port + 1))
advertised.listeners=PLAINTEXT://127.0.0.1:$port
controller.listener.names=CONTROLLER
inter.broker.listener.name=PLAINTEXT
listener.security.protocol.map=CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT
controller.quorum.voters=$VOTERS
log.dirs=$dir/data-$id
PROPS
  if [ "$3" = kafka ]; then
    "${KJAVA[@]}" kafka.tools.StorageTool format --config "$dir/server-$id.properties" \
      --cluster-id "$4" >"$dir/format-$id.log" 2>&1
  fi
}

# Starts node $2 of directory $1 in the background, output to $4; sets PIDS[$2].
launch_node() { # dir id broker output
  local dir=$1 id=$2
  if [ "$3" = kafka ]; then
    # shellcheck disable=SC2086
    "$JAVA" $HEAP $JVM_FLAGS -Dlog4j2.configurationFile="$BENCH/config/log4j2-broker.properties" \
      -Dkafka.logs.dir="$dir/logs-$id" -cp "$KAFKA_CP" kafka.Kafka "$dir/server-$id.properties" \
      >"$4" 2>&1 &
  else
    # brook-base: the baseline jar of an A/B between two Brook builds.
    local jar="$JAR"
    [ "$3" = brook-base ] && jar="${BASE_JAR:?set BASE_JAR to the baseline brook.jar}"
    # shellcheck disable=SC2086
    "$JAVA" $HEAP $JVM_FLAGS -jar "$jar" server "$dir/server-$id.properties" >"$4" 2>&1 &
  fi
  PIDS[$id]=$!
}
