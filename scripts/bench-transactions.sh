#!/usr/bin/env bash
# Transactions, Brook against Apache Kafka: three combined nodes (separate JVMs, same heap and GC
# flags), topics with replication factor 3 and min.insync.replicas=2. Rounds are interleaved
# (kafka, brook, kafka, brook, ...), each on a fresh cluster. Three workloads per run:
#   txn-max    Kafka's ProducerPerformance with a transactional id, committing every COMMIT_MS:
#              RECORDS records as fast as it can send (records/s, MB/s, broker CPU seconds);
#   txn-e2e    TransactionalLatency at RATE records/s for RATE_SECS s, a transaction committed every
#              COMMIT_MS, read by a read_committed consumer: send->receive p50/p99/p99.9;
#   plain-e2e  the same without transactions (idempotent producer, read_uncommitted): the reference,
#              so txn-e2e minus plain-e2e is the latency transactions add.
#
#   scripts/bench-transactions.sh   env: ROUNDS (5), RECORDS (1000000), RECORD_SIZE (1024),
#                                        COMMIT_MS (100), RATE (5000), RATE_SECS (20),
#                                        PARTITIONS (6), LINGER_MS (5), BENCH (scripts/bench)
#   COMPARE="brook-v1 brook" scripts/bench-transactions.sh
#       Brook with transactions V1 (transaction.version downgraded to 1 with Kafka's FeatureCommand
#       after start, so kafka-clients speaks the V1 protocol) against Brook with V2 (the default).
#   BASE_JAR=<other tree>/brook-server/target/brook.jar COMPARE="brook-base brook" \
#     scripts/bench-transactions.sh
#       This tree's Brook against another build of it (an A/B of a change).
#
# Build first: mvn -B -DskipTests verify (brook.jar and brook-tests' test classes).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
ROUNDS="${ROUNDS:-5}"
RECORDS="${RECORDS:-1000000}"
RECORD_SIZE="${RECORD_SIZE:-1024}"
COMMIT_MS="${COMMIT_MS:-100}"
PARTITIONS="${PARTITIONS:-6}"
LINGER_MS="${LINGER_MS:-5}"
RATE="${RATE:-5000}"
RATE_SECS="${RATE_SECS:-20}"
RESULTS="$ROOT/target/bench-transactions-$(date +%Y%m%d-%H%M%S).txt"
# shellcheck source=lib/replicated-cluster.sh
. "$ROOT/scripts/lib/replicated-cluster.sh"
trap stop_cluster EXIT
LATENCY=("$JAVA" -Dlog4j2.configurationFile=log4j2-child.properties -cp "$TEST_CLASSES:$(cat "$CP_FILE")" io.brook.tests.tools.TransactionalLatency)

transactional_max() { # broker round topic
  local before after line
  before=$(broker_ticks)
  line="$("${KJAVA[@]}" org.apache.kafka.tools.ProducerPerformance --topic "$3" \
    --num-records "$RECORDS" --record-size "$RECORD_SIZE" --throughput -1 \
    --transactional-id "bench-$1-$2" --transaction-duration-ms "$COMMIT_MS" \
    --producer-props bootstrap.servers="$BROKERS" acks=all linger.ms="$LINGER_MS" 2>&1 | tail -1)"
  after=$(broker_ticks)
  # "N records sent, R records/sec (M MB/sec), A ms avg latency, X ms max latency, P50 ms 50th, ..."
  echo "$line" | awk -v b="$1" -v r="$2" -v cpu="$((after - before))" -v hz="$(getconf CLK_TCK)" '{
    gsub(/[(),]/, "");
    printf "%s txn-max round=%s records_per_s=%s mb_per_s=%s broker_cpu_s=%.1f\n",
      b, r, $4, $6, cpu / hz }' | tee -a "$RESULTS"
}

latency() { # broker round workload topic mode
  local before after line
  before=$(broker_ticks)
  line="$("${LATENCY[@]}" "$BROKERS" "$4" "$5" "$RATE" "$RATE_SECS" "$COMMIT_MS" | tail -1)"
  after=$(broker_ticks)
  # "sent=N received=N p50_ms=X p99_ms=X p999_ms=X max_ms=X record_retries=N"
  echo "$1 $3 round=$2 ${line#sent=* } broker_cpu_s=$(awk -v t="$((after - before))" -v hz="$(getconf CLK_TCK)" 'BEGIN { printf "%.1f", t / hz }')" \
    | tee -a "$RESULTS"
}

run_once() { # label round: kafka, brook, brook-base (BASE_JAR) or brook-v1 (transaction.version 1)
  start_cluster "${1%-v1}"
  if [ "$1" = brook-v1 ]; then
    "${KJAVA[@]}" org.apache.kafka.tools.FeatureCommand --bootstrap-server "$BROKERS" \
      downgrade --feature transaction.version=1 >"$WORK/features.log" 2>&1
  fi
  create_topic warmup
  create_topic measured
  create_topic latency-txn
  create_topic latency-plain
  "${KJAVA[@]}" org.apache.kafka.tools.ProducerPerformance --topic warmup \
    --num-records $((RECORDS / 4)) --record-size "$RECORD_SIZE" --throughput -1 \
    --transactional-id "warmup-$1-$2" --transaction-duration-ms "$COMMIT_MS" \
    --producer-props bootstrap.servers="$BROKERS" acks=all linger.ms="$LINGER_MS" >/dev/null 2>&1
  transactional_max "$1" "$2" measured
  latency "$1" "$2" txn-e2e latency-txn transactional
  latency "$1" "$2" plain-e2e latency-plain plain
  stop_cluster
}

read -r -a LABELS <<<"${COMPARE:-kafka brook}"
for round in $(seq 1 "$ROUNDS"); do
  run_once "${LABELS[0]}" "$round"
  run_once "${LABELS[1]}" "$round"
done
print_medians "${LABELS[0]}" "${LABELS[1]}"
