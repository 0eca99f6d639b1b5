#!/usr/bin/env bash
# Share-group (KIP-932) consumer throughput, Brook against Apache Kafka on the same machine,
# interleaved: a 3-partition topic is filled once per broker, then each run is a new share group
# (share.auto.offset.reset=earliest, set as a group config with Kafka's kafka-configs tool) read to
# the end by Kafka's own kafka-share-consumer-perf-test (org.apache.kafka.tools.ShareConsumerPerformance)
# with 1, 4 and 16 share consumers. Per run: records/s and MB/s as the tool reports them, and the
# broker's CPU-seconds (utime + stime from /proc) over the run.
# Then, per round and broker, a latency run (scripts/bench/ShareLatencyClient.java): a producer at
# LAT_RATE records/s into a new 3-partition topic, LAT_CONSUMERS share consumers in explicit mode
# accepting every record at once and committing after each poll; send-to-acquisition and
# acquisition-to-ack percentiles (ms) over LAT_SECS seconds after a LAT_WARMUP-second warm-up.
# Usage: scripts/bench-share.sh
#   env: ROUNDS (3), CONSUMERS ("1 4 16"), RECORDS (2000000), RECORD_SIZE (100),
#        LAT_CONSUMERS (4), LAT_RATE (1000), LAT_SECS (20), LAT_WARMUP (5) (LAT_RATE=0: no latency runs),
#        BENCH (scripts/bench), BENCH_WORK_DIR (where the Kafka jars are, scripts/bench/out)
# Prints one line per run, then tables of medians per broker and consumer count.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BENCH="${BENCH:-$ROOT/scripts/bench}"
KAFKA_PORT="${KAFKA_PORT:-29092}"
BROOK_PORT="${BROOK_PORT:-29094}"
ROUNDS="${ROUNDS:-3}"
CONSUMERS="${CONSUMERS:-1 4 16}"
RECORDS="${RECORDS:-2000000}"
RECORD_SIZE="${RECORD_SIZE:-100}"
LAT_CONSUMERS="${LAT_CONSUMERS:-4}"
LAT_RATE="${LAT_RATE:-1000}"
LAT_SECS="${LAT_SECS:-20}"
LAT_WARMUP="${LAT_WARMUP:-5}"
TOPIC="share-perf"
. "$BENCH/common.sh"
ensure_jars
# The latency client, compiled once against the Kafka jars the harness fetched.
LAT_CLASSES="$BENCH/target/share-latency-classes"
if [ "$LAT_RATE" != 0 ]; then
  mkdir -p "$LAT_CLASSES"
  "${JAVA_HOME:+$JAVA_HOME/bin/}javac" -nowarn -d "$LAT_CLASSES" -cp "$LIB_DIR/*" \
    "$BENCH/ShareLatencyClient.java"
fi
source "$ROOT/scripts/lib/bench-brokers.sh"
start_bench_brokers
KAFKA_PID="$(cat "${TMPDIR:-/tmp}/bench-kafka-$KAFKA_PORT/kafka.pid")"
RESULTS="$(mktemp)"
trap 'kill $BROOK_PID 2>/dev/null || true; "$BENCH/stop-kafka.sh" $KAFKA_PORT >/dev/null 2>&1 || true; rm -f "$RESULTS"' EXIT

# CPU-seconds a process has used (user + system), from /proc/PID/stat.
TICKS="$(getconf CLK_TCK)"
cpu_seconds() {
  awk -v t="$TICKS" '{ sub(/.*\) /, ""); printf "%.2f", ($12 + $13) / t }' "/proc/$1/stat"
}

# The topic, filled with RECORDS records of RECORD_SIZE bytes (acks=all), on each broker.
for target in "kafka:$KAFKA_PORT" "brook:$BROOK_PORT"; do
  name="${target%%:*}"; port="${target##*:}"
  kjava org.apache.kafka.tools.TopicCommand --bootstrap-server "127.0.0.1:$port" --create \
    --topic "$TOPIC" --partitions 3 --replication-factor 1 >&2
  kjava org.apache.kafka.tools.ProducerPerformance --topic "$TOPIC" --num-records "$RECORDS" \
    --record-size "$RECORD_SIZE" --throughput -1 \
    --producer-props "bootstrap.servers=127.0.0.1:$port" acks=all linger.ms=5 batch.size=65536 \
    | tail -1 | sed "s/^/# $name fill: /" >&2
done

for round in $(seq 1 "$ROUNDS"); do
  for consumers in $CONSUMERS; do
    for target in "kafka:$KAFKA_PORT:$KAFKA_PID" "brook:$BROOK_PORT:$BROOK_PID"; do
      IFS=: read -r name port pid <<< "$target"
      group="share-perf-$round-$consumers"
      # A new group reads the topic from its start only with share.auto.offset.reset=earliest.
      kjava org.apache.kafka.tools.ConfigCommand --bootstrap-server "127.0.0.1:$port" \
        --entity-type groups --entity-name "$group" --alter \
        --add-config share.auto.offset.reset=earliest >/dev/null
      before="$(cpu_seconds "$pid")"
      start="$(date +%s.%N)"
      line="$(kjava org.apache.kafka.tools.ShareConsumerPerformance \
        --bootstrap-server "127.0.0.1:$port" --topic "$TOPIC" --group "$group" \
        --num-records "$RECORDS" --threads "$consumers" --timeout 60000 --hide-header \
        2>/dev/null | grep -E '^[0-9]{4}-' | tail -1)"
      end="$(date +%s.%N)"
      after="$(cpu_seconds "$pid")"
      # start.time, end.time, data.consumed.in.MB, MB.sec, nMsg.sec, data.consumed.in.nMsg, ...
      IFS=, read -r _ _ mb mb_s msg_s count _ <<< "$line"
      printf '%s round=%s consumers=%s records=%s records_per_s=%.0f mb_per_s=%.2f cpu_s=%.2f wall_s=%.2f\n' \
        "$name" "$round" "$consumers" "${count// /}" "${msg_s:-0}" "${mb_s:-0}" \
        "$(awk -v a="$after" -v b="$before" 'BEGIN { print a - b }')" \
        "$(awk -v a="$end" -v b="$start" 'BEGIN { print a - b }')" | tee -a "$RESULTS"
    done
  done
  [ "$LAT_RATE" != 0 ] || continue
  for target in "kafka:$KAFKA_PORT:$KAFKA_PID" "brook:$BROOK_PORT:$BROOK_PID"; do
    IFS=: read -r name port pid <<< "$target"
    topic="share-latency-$round"
    group="share-latency-$round"
    kjava org.apache.kafka.tools.TopicCommand --bootstrap-server "127.0.0.1:$port" --create \
      --topic "$topic" --partitions 3 --replication-factor 1 >/dev/null
    kjava org.apache.kafka.tools.ConfigCommand --bootstrap-server "127.0.0.1:$port" \
      --entity-type groups --entity-name "$group" --alter \
      --add-config share.auto.offset.reset=earliest >/dev/null
    before="$(cpu_seconds "$pid")"
    line="$("$JAVA" $CLIENT_JVM_OPTS -cp "$LAT_CLASSES:$LIB_DIR/*" ShareLatencyClient \
      "127.0.0.1:$port" "$topic" "$group" "$LAT_CONSUMERS" "$LAT_RATE" "$LAT_SECS" "$LAT_WARMUP" \
      "$RECORD_SIZE" 2>/dev/null | tail -1)"
    after="$(cpu_seconds "$pid")"
    printf '%s round=%s latency consumers=%s rate=%s %s cpu_s=%.2f\n' "$name" "$round" \
      "$LAT_CONSUMERS" "$LAT_RATE" "$line" \
      "$(awk -v a="$after" -v b="$before" 'BEGIN { print a - b }')" | tee -a "$RESULTS"
  done
done

# Medians per broker and consumer count.
echo
printf '%-6s %9s %14s %9s %12s %6s\n' broker consumers records/s MB/s broker-cpu-s runs
for name in kafka brook; do
  for consumers in $CONSUMERS; do
    grep "^$name .* consumers=$consumers " "$RESULTS" | grep -v ' latency ' | awk -v n="$name" -v c="$consumers" '
      { for (i = 2; i <= NF; i++) { split($i, kv, "="); v[kv[1], NR] = kv[2] } }
      END {
        if (NR == 0) exit
        split("records_per_s mb_per_s cpu_s", keys, " ")
        for (k = 1; k <= 3; k++) {
          m = 0
          for (i = 1; i <= NR; i++) a[i] = v[keys[k], i] + 0
          for (i = 1; i <= NR; i++) for (j = i + 1; j <= NR; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
          med[k] = (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2
        }
        printf "%-6s %9s %14.0f %9.2f %12.2f %6d\n", n, c, med[1], med[2], med[3], NR
      }'
  done
done

# Latency medians (of the per-run percentiles) per broker.
if [ "$LAT_RATE" != 0 ]; then
  echo
  printf '%-6s %9s %16s %16s %14s %14s %15s %12s %5s\n' broker consumers acquire-p50-ms acquire-p99-ms \
    ack-p50-ms ack-p99-ms ack-p999-ms broker-cpu-s runs
  for name in kafka brook; do
    grep "^$name .* latency " "$RESULTS" | awk -v n="$name" -v c="$LAT_CONSUMERS" '
      { for (i = 2; i <= NF; i++) { split($i, kv, "="); v[kv[1], NR] = kv[2] } }
      END {
        if (NR == 0) exit
        split("acquire_p50_ms acquire_p99_ms ack_p50_ms ack_p99_ms ack_p999_ms cpu_s", keys, " ")
        for (k = 1; k <= 6; k++) {
          for (i = 1; i <= NR; i++) a[i] = v[keys[k], i] + 0
          for (i = 1; i <= NR; i++) for (j = i + 1; j <= NR; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
          med[k] = (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2
        }
        printf "%-6s %9s %16.2f %16.2f %14.2f %14.2f %15.2f %12.2f %5d\n", n, c, med[1], med[2], med[3], med[4], med[5], med[6], NR
      }'
  done
fi
