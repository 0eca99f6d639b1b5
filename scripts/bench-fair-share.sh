#!/usr/bin/env bash
# The fair-share mode (docs/quotas.md): p99 ack latency of a small producer (1,000 records of
# 100 B a second, acks=1) alone, next to a full-speed backfill producer, and next to the backfill
# with brook.quota.fair.share.bytes.per.second set; each on a fresh single-node Brook, ROUNDS times,
# interleaved (brook-bench FairShareBench).
# Usage: scripts/bench-fair-share.sh   env: ROUNDS (3), RUN_SECONDS (30), RATE (1000),
#        FAIR_SHARE_BYTES (bytes/s the broker is to take before sharing; 67108864), BROOK_PORT (29098)
# Prints one line per run: mode, records acked, p50/p99/p999 ms, the backfill's MiB/s.
# Quick check that it works: ROUNDS=1 RUN_SECONDS=5 scripts/bench-fair-share.sh
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BROOK_PORT="${BROOK_PORT:-29098}"
JAR="$ROOT/brook-bench/target/benchmarks.jar"
[ -f "$JAR" ] || (cd "$ROOT" && mvn -B -q -DskipTests package -pl brook-bench -am)
[ -f "$ROOT/brook-server/target/brook.jar" ] || (cd "$ROOT" && mvn -B -q -DskipTests package -pl brook-server -am)
source "$ROOT/scripts/lib/bench-brokers.sh"
BROOK_PID=""
trap '[ -n "$BROOK_PID" ] && kill $BROOK_PID 2>/dev/null || true' EXIT

# run MODE EXTRA_PROPS: a fresh Brook with EXTRA_PROPS, one FairShareBench run, the Brook stopped
run() {
  local mode="$1" label="$2"
  BROOK_EXTRA_PROPS="$3" start_brook "$ROOT/brook-server/target/brook.jar" "$BROOK_PORT"
  BROOK_PID=$STARTED_PID
  echo "$label $(java -cp "$JAR" io.brook.bench.quotas.FairShareBench "127.0.0.1:$BROOK_PORT" \
    "$mode" "${RUN_SECONDS:-30}" "${RATE:-1000}" 2>/dev/null | tail -1)"
  kill "$BROOK_PID"; wait "$BROOK_PID" 2>/dev/null || true; BROOK_PID=""
}

for round in $(seq 1 "${ROUNDS:-3}"); do
  run alone "round=$round mode=alone" ""
  run backfill "round=$round mode=backfill" ""
  run backfill "round=$round mode=fair-share" \
    "brook.quota.fair.share.bytes.per.second=${FAIR_SHARE_BYTES:-67108864}"
done
