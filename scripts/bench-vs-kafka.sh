#!/usr/bin/env bash
# Side-by-side benchmark of Brook against Apache Kafka with the benchmark harness in scripts/bench:
# both brokers single-node on loopback, same JVM heap and GC flags, runs interleaved A,B,A,B,...
#   scripts/bench-vs-kafka.sh                  env: ROUNDS (5), WORKLOADS, RECORDS (1000000),
#                                              BENCH (path to the harness, default scripts/bench),
#                                              TLS (1: both brokers' client listener speaks TLS,
#                                              same certificates and settings, see tls-setup.sh)
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

if [ "${TLS:-0}" = 1 ]; then
  # One test CA and broker keystore for both brokers; every client tool gets the client config.
  TLS_DIR="$BENCH/out/tls"
  "$BENCH/tls-setup.sh" "$TLS_DIR" >&2
  export EXTRA_BROKER_PROPS="$TLS_DIR/broker-ssl.properties"
  BROOK_EXTRA_PROPS="$(cat "$TLS_DIR/broker-ssl.properties")"
  export CLIENT_CONFIG="$TLS_DIR/client-ssl.properties"
fi

source "$ROOT/scripts/lib/bench-brokers.sh"
start_bench_brokers
BROKER_PID="" "$BENCH/compare.sh" "127.0.0.1:$KAFKA_PORT" "127.0.0.1:$BROOK_PORT"
