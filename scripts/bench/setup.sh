#!/usr/bin/env bash
# Prepares the benchmark harness: copies Apache Kafka's jars (broker, perf tools, clients; resolved by
# Maven from Maven Central, so the first run needs the network) into out/lib/<kafka.version>/ and
# builds the harness's own tools into target/bench-tools.jar. Brook's own build never does this.
#   scripts/bench/setup.sh            env: KAFKA_VERSION overrides the pom's kafka.version,
#                                          MVN_OPTS (e.g. -o once the jars are in ~/.m2)
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/common.sh"
cd "$BENCH_DIR"
# shellcheck disable=SC2086
mvn -q -B ${MVN_OPTS:-} -f pom.xml package -Dkafka.version="$KAFKA_VERSION" -Dbench.lib.dir="$LIB_DIR"
echo "Kafka $KAFKA_VERSION jars in ${LIB_DIR#$BENCH_DIR/} ($(ls "$LIB_DIR" | wc -l) files); tools in target/bench-tools.jar"
