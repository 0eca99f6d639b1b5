#!/usr/bin/env bash
# Quota accuracy (docs/quotas.md): a kafka-clients producer held to producer_byte_rate, then a
# consumer held to consumer_byte_rate, each at full speed against a fresh single-node Brook with
# Kafka's quota windows (11 x 1 s); their bytes are counted per 100 ms and, after the warm-up (the
# first window's burst), cut into consecutive spans of 1, 5 and 20 s whose rates are compared with
# the quota (brook-bench QuotaAccuracyBench).
# Usage: scripts/bench-quotas.sh   env: RATES_MIB ("1 5"), RUN_SECONDS (60), WARMUP_SECONDS (20),
#        SPANS (1,5,20), BROOK_PORT (29096)
# Prints one line per (produce|consume, quota, span): spans measured, median/min/max MiB/s, and the
# median and worst error against the quota in percent.
# Quick check that it works: RATES_MIB=1 RUN_SECONDS=6 WARMUP_SECONDS=2 SPANS=1,5 scripts/bench-quotas.sh
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BROOK_PORT="${BROOK_PORT:-29096}"
JAR="$ROOT/brook-bench/target/benchmarks.jar"
[ -f "$JAR" ] || (cd "$ROOT" && mvn -B -q -DskipTests package -pl brook-bench -am)
[ -f "$ROOT/brook-server/target/brook.jar" ] || (cd "$ROOT" && mvn -B -q -DskipTests package -pl brook-server -am)
source "$ROOT/scripts/lib/bench-brokers.sh"
start_brook "$ROOT/brook-server/target/brook.jar" "$BROOK_PORT"
BROOK_PID=$STARTED_PID
trap 'kill $BROOK_PID 2>/dev/null || true' EXIT

for mib in ${RATES_MIB:-1 5}; do
  for kind in produce consume; do
    java -cp "$JAR" io.brook.bench.quotas.QuotaAccuracyBench "127.0.0.1:$BROOK_PORT" "$kind" \
      "$((mib * 1024 * 1024))" "${RUN_SECONDS:-60}" "${WARMUP_SECONDS:-20}" "${SPANS:-1,5,20}" \
      2>/dev/null
  done
done
