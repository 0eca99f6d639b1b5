#!/usr/bin/env bash
# Apache Kafka baseline: REPS times (default 3) start a fresh Apache Kafka broker, run.sh against it, stop it;
# then print the median/min/max summary. Lines go to out/results/kafka-<version>.txt.
#   ./baseline.sh            env: REPS (3), PORT (19092), plus everything run.sh / start-kafka.sh read
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/common.sh"
REPS="${REPS:-3}"; PORT="${PORT:-19092}"
LABEL="kafka-$KAFKA_VERSION"
trap '"$BENCH_DIR/stop-kafka.sh" "$PORT" >/dev/null 2>&1 || true' EXIT
for r in $(seq 1 "$REPS"); do
  echo "# repetition $r/$REPS" >&2
  "$BENCH_DIR/start-kafka.sh" "$PORT" >&2
  ROUND=$r "$BENCH_DIR/run.sh" "127.0.0.1:$PORT" "$LABEL" || echo "# run.sh failed in repetition $r" >&2
  "$BENCH_DIR/stop-kafka.sh" "$PORT" >&2
done
"$BENCH_DIR/summarize.sh" "$RES_DIR/$LABEL.txt"
