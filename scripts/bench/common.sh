# Sourced by the harness scripts. Resolves paths relative to this folder, the Kafka version and the
# class path, and fetches Kafka's jars with Maven on first use (see setup.sh).
# Everything downloaded or produced (Kafka jars, results, generated payloads) goes to out/, which
# git ignores; the compiled tools go to target/.
BENCH_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
WORK_DIR="${BENCH_WORK_DIR:-$BENCH_DIR/out}"
RES_DIR="$WORK_DIR/results"
KAFKA_VERSION="${KAFKA_VERSION:-$(sed -n 's:.*<kafka.version>\(.*\)</kafka.version>.*:\1:p' "$BENCH_DIR/pom.xml" | head -1)}"
LIB_DIR="$WORK_DIR/lib/$KAFKA_VERSION"
TOOLS_JAR="$BENCH_DIR/target/bench-tools.jar"
if [ -n "${JAVA_HOME:-}" ]; then JAVA="$JAVA_HOME/bin/java"; else JAVA="$(command -v java)"; fi

ensure_jars() {
  if [ ! -f "$LIB_DIR/kafka-tools-$KAFKA_VERSION.jar" ] || [ ! -f "$TOOLS_JAR" ]; then
    echo "# fetching Kafka $KAFKA_VERSION jars into ${LIB_DIR#$BENCH_DIR/} (scripts/bench/setup.sh) ..." >&2
    "$BENCH_DIR/setup.sh" >&2 || { echo "setup.sh failed" >&2; exit 1; }
  fi
}
CP="$LIB_DIR/*:$TOOLS_JAR"
# client JVM options (perf tools, admin), like kafka-run-class.sh minus the broker GC logging
CLIENT_JVM_OPTS="${CLIENT_JVM_OPTS:--Xmx512m -XX:+UseG1GC -XX:MaxGCPauseMillis=20 -XX:InitiatingHeapOccupancyPercent=35 -Djava.awt.headless=true -Dlog4j2.configurationFile=$BENCH_DIR/config/log4j2-tools.properties}"
kjava() { "$JAVA" $CLIENT_JVM_OPTS -cp "$CP" "$@"; }
