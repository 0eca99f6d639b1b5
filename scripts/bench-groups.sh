#!/usr/bin/env bash
# Group-coordinator benchmarks, Brook against Apache Kafka on the same machine, interleaved:
#   commit  - offset-commit throughput and latency (brook-bench CommitBench)
#   rebalance - time for a 60-member classic group to form and to rebalance (RebalanceBench)
# Usage: scripts/bench-groups.sh     env: ROUNDS (5), BENCH (scripts/bench), CLIENTS (16),
#        PARTITIONS (12), BENCH_SECONDS (20), MEMBERS (60)
# Prints one line per run; lines starting "kafka"/"brook" can be compared by median.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BENCH="${BENCH:-$ROOT/scripts/bench}"
# Below the kernel's ephemeral range (32768 up by default), where no outgoing connection can hold
# them; each broker takes PORT + 1 for its controller listener too.
KAFKA_PORT="${KAFKA_PORT:-29092}"
BROOK_PORT="${BROOK_PORT:-29094}"
ROUNDS="${ROUNDS:-5}"
JAR="$ROOT/brook-bench/target/benchmarks.jar"
[ -f "$JAR" ] || (cd "$ROOT" && mvn -B -q -DskipTests package -pl brook-bench -am)
source "$ROOT/scripts/lib/bench-brokers.sh"
start_bench_brokers

for round in $(seq 1 "$ROUNDS"); do
  for target in "kafka:$KAFKA_PORT" "brook:$BROOK_PORT"; do
    name="${target%%:*}"; port="${target##*:}"
    echo "$name round=$round $(java -cp "$JAR" io.brook.bench.groups.CommitBench "127.0.0.1:$port" \
      "${CLIENTS:-16}" "${PARTITIONS:-12}" "${BENCH_SECONDS:-20}" 2>/dev/null | tail -1)"
    echo "$name round=$round $(java -cp "$JAR" io.brook.bench.groups.RebalanceBench "127.0.0.1:$port" \
      "${MEMBERS:-60}" 2>/dev/null | tail -1)"
  done
done
