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
# steadiest figure on a noisy machine), the part of it their JIT compiler threads took, and the
# rest: compilation still under way is warm-up that can dominate a short phase.
#
#   scripts/bench-replicated.sh        env: ROUNDS (5), RECORDS (1000000), RECORD_SIZE (1024),
#                                           RATE (5000), RATE_SECS (20), PARTITIONS (6),
#                                           LINGER_MS (5), BENCH (scripts/bench)
#   COMPARE="brook-nosessions brook" scripts/bench-replicated.sh
#       Brook with incremental fetch sessions off (max.incremental.fetch.session.cache.slots=0:
#       every follower fetch lists all its partitions) against Brook with them (the default).
#   BASE_JAR=<other tree>/brook-server/target/brook.jar COMPARE="brook-base brook" \
#     scripts/bench-replicated.sh
#       This tree's Brook against another build of it.
#
# Build first: mvn -B -DskipTests verify (brook.jar and brook-tests' test classes).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
ROUNDS="${ROUNDS:-5}"
RECORDS="${RECORDS:-1000000}"
RECORD_SIZE="${RECORD_SIZE:-1024}"
PARTITIONS="${PARTITIONS:-6}"
LINGER_MS="${LINGER_MS:-5}"
RATE="${RATE:-5000}"
RATE_SECS="${RATE_SECS:-20}"

RESULTS="$ROOT/target/bench-replicated-$(date +%Y%m%d-%H%M%S).txt"
# shellcheck source=lib/replicated-cluster.sh
. "$ROOT/scripts/lib/replicated-cluster.sh"
trap stop_cluster EXIT

produce() { # topic records throughput
  "${KJAVA[@]}" org.apache.kafka.tools.ProducerPerformance --topic "$1" --num-records "$2" \
    --record-size "$RECORD_SIZE" --throughput "$3" \
    --producer-props bootstrap.servers="$BROKERS" acks=all linger.ms="$LINGER_MS" 2>&1 | tail -1
}

measure() { # broker round workload topic records throughput
  local before after jit_before jit_after line
  before=$(broker_ticks)
  jit_before="$(jit_thread_ticks)"
  line="$(produce "$4" "$5" "$6")"
  after=$(broker_ticks)
  jit_after="$(jit_thread_ticks)"
  # "N records sent, R records/sec (M MB/sec), A ms avg latency, X ms max latency, P50 ms 50th, P95 ms 95th, P99 ms 99th, P999 ms 99.9th."
  echo "$line" | awk -v b="$1" -v r="$2" -v w="$3" -v cpu="$((after - before))" \
    -v jit="$(jit_ticks_between "$jit_before" "$jit_after")" -v hz="$(getconf CLK_TCK)" '{
    gsub(/[(),]/, "");
    printf "%s %s round=%s records_per_s=%s mb_per_s=%s p50_ms=%s p99_ms=%s p999_ms=%s broker_cpu_s=%.1f broker_jit_cpu_s=%.1f broker_cpu_without_jit_s=%.1f\n",
      b, w, r, $4, $6, $16, $22, $25, cpu / hz, jit / hz, (cpu - jit) / hz }' | tee -a "$RESULTS"
}

run_once() { # label round: kafka, brook, brook-base (BASE_JAR) or brook-nosessions
  if [ "$1" = brook-nosessions ]; then
    start_cluster brook "max.incremental.fetch.session.cache.slots=0"
  else
    start_cluster "$1"
  fi
  create_topic warmup
  create_topic measured
  create_topic latency
  produce warmup $((RECORDS / 4)) -1 >/dev/null
  measure "$1" "$2" max measured "$RECORDS" -1
  measure "$1" "$2" rate latency $((RATE * RATE_SECS)) "$RATE"
  stop_cluster
}

read -r -a LABELS <<<"${COMPARE:-kafka brook}"
for round in $(seq 1 "$ROUNDS"); do
  run_once "${LABELS[0]}" "$round"
  run_once "${LABELS[1]}" "$round"
done

print_medians "${LABELS[0]}" "${LABELS[1]}"
