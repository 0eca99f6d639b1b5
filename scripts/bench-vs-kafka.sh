#!/usr/bin/env bash
# Side-by-side benchmark of Brook against Apache Kafka with the benchmark harness in scripts/bench:
# both brokers single-node on loopback, same JVM heap and GC flags, runs interleaved A,B,A,B,...
#   scripts/bench-vs-kafka.sh                  env: ROUNDS (5), WORKLOADS, RECORDS (1000000),
#                                              BENCH (path to the harness, default scripts/bench)
# Prints the harness report (medians, B/A ratios; A = Kafka, B = Brook) and keeps it in
# $BENCH/out/results/compare-*.txt. Use MAX_OTHER_CPU=0.25 to keep only quiet samples.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BENCH="${BENCH:-$ROOT/scripts/bench}"
# Below the kernel's ephemeral range (32768 up by default), where no outgoing connection can hold
# them; each broker takes PORT + 1 for its controller listener too.
KAFKA_PORT="${KAFKA_PORT:-29092}"
BROOK_PORT="${BROOK_PORT:-29094}"
export ROUNDS="${ROUNDS:-5}"
export RECORDS="${RECORDS:-1000000}"
export WORKLOADS="${WORKLOADS:-produce-acks1-1k produce-acksall-1k produce-lz4-json e2e-5k}"
export LABEL_A=kafka LABEL_B=brook

source "$ROOT/scripts/lib/bench-brokers.sh"
start_bench_brokers
BROKER_PID="" "$BENCH/compare.sh" "127.0.0.1:$KAFKA_PORT" "127.0.0.1:$BROOK_PORT"
