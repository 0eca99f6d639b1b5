# Sourced by the benchmark scripts: starts a single-node Brook and an Apache Kafka (from the benchmark
# harness) on loopback with the same JVM heap and GC flags, and stops both on exit.
# Needs ROOT, BENCH, KAFKA_PORT, BROOK_PORT set by the caller.

# start_brook JAR PORT: a fresh single-node Brook from JAR on PORT (and PORT+1 for its controller
# listener), data in $TMPDIR/bench-brook-PORT; its PID goes to $STARTED_PID. Returns once it listens.
# BROOK_EXTRA_PROPS, if set, is appended to its server.properties (one property per line);
# BROOK_JVM_EXTRA, if set, adds JVM options (a JFR recording or a GC log while profiling, e.g.
# "-XX:StartFlightRecording=filename=/tmp/brook.jfr,settings=profile -Xlog:gc:file=/tmp/gc.log").
start_brook() {
  local jar="$1" port="$2"
  local data="${TMPDIR:-/tmp}/bench-brook-$port"
  rm -rf "$data"; mkdir -p "$data"
  cat > "$data/server.properties" <<PROPS
node.id=1
process.roles=broker,controller
listeners=PLAINTEXT://127.0.0.1:$port,CONTROLLER://127.0.0.1:$((port + 1))
advertised.listeners=PLAINTEXT://127.0.0.1:$port
controller.listener.names=CONTROLLER
controller.quorum.voters=1@127.0.0.1:$((port + 1))
log.dirs=$data/data
num.partitions=6
offsets.topic.replication.factor=1
transaction.state.log.replication.factor=1
transaction.state.log.min.isr=1
group.initial.rebalance.delay.ms=0
${BROOK_EXTRA_PROPS:-}
PROPS
  # Same heap and GC flags as the harness gives Kafka (kafka-server-start.sh defaults).
  # shellcheck disable=SC2086
  java -Xms1g -Xmx1g -server -XX:+UseG1GC -XX:MaxGCPauseMillis=20 -XX:InitiatingHeapOccupancyPercent=35 \
    -XX:+ExplicitGCInvokesConcurrent -XX:MaxInlineLevel=15 -Djava.awt.headless=true \
    ${BROOK_JVM_EXTRA:-} -jar "$jar" server "$data/server.properties" > "$data/broker.log" 2>&1 &
  STARTED_PID=$!
  for _ in $(seq 1 60); do
    (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && break
    sleep 0.5
  done
}

start_bench_brokers() {
  [ -f "$ROOT/brook-server/target/brook.jar" ] || (cd "$ROOT" && mvn -B -q -DskipTests package -pl brook-server -am)
  start_brook "$ROOT/brook-server/target/brook.jar" "$BROOK_PORT"
  BROOK_PID=$STARTED_PID
  trap 'kill $BROOK_PID 2>/dev/null || true; "$BENCH/stop-kafka.sh" $KAFKA_PORT >/dev/null 2>&1 || true' EXIT
  "$BENCH/start-kafka.sh" "$KAFKA_PORT" >&2
}
