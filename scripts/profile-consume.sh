#!/usr/bin/env bash
# Profiles one broker's consume path: a fresh single-node broker, RECORDS x 1 KiB produced with
# ProducerPerformance (acks=1, linger.ms=5, 6 partitions), then one ConsumerPerformance group reads
# them back while the broker records a JFR profile (settings=profile), or, with STRACE=1, while
# `strace -c -f` counts the broker's system calls over the whole read (slower; no JFR then).
#   scripts/profile-consume.sh                  Brook from brook-server/target/brook.jar (JAR=...)
#   BROKER=kafka scripts/profile-consume.sh     Apache Kafka from the benchmark harness's jars
# env: RECORDS (3000000), PORT (21777; PORT+1 is the controller listener), OUT (results folder),
#      JFR (1; 0 = no recording, for CPU figures without its own cost), STRACE (0), PERF (1: also `perf record -g` of the broker during the read, to OUT/perf.data,
#      for the kernel's share: `perf report -i OUT/perf.data --no-children --sort sym`),
#      WARM_READS (0: reads of the whole topic by other groups before the recorded one, so the
#      broker's JIT has compiled the read path as in a long-running broker),
#      BENCH (harness folder), KEEP_DATA=1, BEFORE_CONSUME (a command run just before the read,
#      e.g. 'fincore $DATA/data/*/*.log' to see how much of the log is in the page cache).
# Writes to OUT: consume.jfr, strace.txt, consumer.log (with --print-metrics: fetch-total,
# fetch-size-avg, ... the client's own count of fetches, the same whichever broker answers) and
# summary.txt (broker CPU-seconds of the read, records/s, the client's fetch metrics, and with
# STRACE=1 the system calls per fetch).
# Read the profile with `jfr view hot-methods OUT/consume.jfr`, `jfr view allocation-by-site ...`.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BENCH="${BENCH:-$ROOT/scripts/bench}"
BROKER="${BROKER:-brook}"
JAR="${JAR:-$ROOT/brook-server/target/brook.jar}"
PORT="${PORT:-21777}"
RECORDS="${RECORDS:-3000000}"
STRACE="${STRACE:-0}"
OUT="${OUT:-${TMPDIR:-/tmp}/profile-consume-$BROKER-$(date +%Y%m%d-%H%M%S)}"
mkdir -p "$OUT"
OUT="$(cd "$OUT" && pwd)"
# shellcheck source=bench/common.sh
. "$BENCH/common.sh"
ensure_jars
BOOT="127.0.0.1:$PORT"
TOPIC="profile-consume"
log() { echo "# $(date +%T) $*" >&2; }

if (exec 3<>"/dev/tcp/127.0.0.1/$PORT") 2>/dev/null; then
  echo "port $PORT is in use; set PORT" >&2
  exit 1
fi

PID=""
stop_broker() {
  if [ "$BROKER" = kafka ]; then
    "$BENCH/stop-kafka.sh" "$PORT" > /dev/null 2>&1 || true
  elif [ -n "$PID" ]; then
    kill "$PID" 2> /dev/null || true
    wait "$PID" 2> /dev/null || true
    [ "${KEEP_DATA:-0}" = 1 ] || rm -rf "${TMPDIR:-/tmp}/bench-brook-$PORT"
  fi
}
trap stop_broker EXIT

DATA="${TMPDIR:-/tmp}/bench-$BROKER-$PORT"   # the broker's folder; its logs are under $DATA/data
if [ "$BROKER" = kafka ]; then
  "$BENCH/start-kafka.sh" "$PORT" >&2
  PID="$(cat "${TMPDIR:-/tmp}/bench-kafka-$PORT/kafka.pid")"
else
  # shellcheck source=lib/bench-brokers.sh
  . "$ROOT/scripts/lib/bench-brokers.sh"
  start_brook "$JAR" "$PORT"
  PID="$STARTED_PID"
fi
log "$BROKER pid $PID on $BOOT; results in $OUT"

kjava org.apache.kafka.tools.TopicCommand --bootstrap-server "$BOOT" --create --topic "$TOPIC" \
  --partitions 6 --replication-factor 1 > "$OUT/admin.log" 2>&1
log "producing $RECORDS records"
kjava org.apache.kafka.tools.ProducerPerformance --bootstrap-server "$BOOT" --topic "$TOPIC" \
  --num-records "$RECORDS" --record-size 1024 --throughput -1 \
  --command-property acks=1 linger.ms=5 compression.type=none > "$OUT/producer.log" 2>&1
for w in $(seq 1 "${WARM_READS:-0}"); do
  log "warm-up read $w of ${WARM_READS}"
  kjava org.apache.kafka.tools.ConsumerPerformance --bootstrap-server "$BOOT" --topic "$TOPIC" \
    --num-records "$RECORDS" --group "profile-warm-$w" --timeout 60000 > "$OUT/warm-$w.log" 2>&1
done
sleep 2

ticks() { sed 's/^.*) //' "/proc/$1/stat" | awk '{ print $12 + $13 }'; }
# per thread: "tid ticks name" (threads named alike, e.g. the event loops, are summed later)
thread_ticks() {
  local t
  for t in /proc/"$1"/task/*; do
    printf '%s %s %s\n' "${t##*/}" "$(sed 's/^.*) //' "$t/stat" 2> /dev/null | awk '{ print $12 + $13 }')" \
      "$(tr ' ' '_' < "$t/comm" 2> /dev/null)"
  done
}
TRACER=""
if [ "$STRACE" = 1 ]; then
  strace -c -f -p "$PID" -o "$OUT/strace.txt" 2> /dev/null &
  TRACER=$!
  sleep 1
elif [ "${JFR:-1}" = 1 ]; then
  jcmd "$PID" JFR.start name=consume settings=profile filename="$OUT/consume.jfr" > /dev/null
fi
PERFREC=""
if [ "${PERF:-0}" = 1 ]; then
  perf record -e cpu-clock -g -p "$PID" -o "$OUT/perf.data" > "$OUT/perf.log" 2>&1 &
  PERFREC=$!
fi
T0="$(ticks "$PID")"
thread_ticks "$PID" > "$OUT/threads-before.txt"
log "consuming $RECORDS records"
[ -z "${BEFORE_CONSUME:-}" ] || eval "$BEFORE_CONSUME"
kjava org.apache.kafka.tools.ConsumerPerformance --bootstrap-server "$BOOT" --topic "$TOPIC" \
  --num-records "$RECORDS" --group profile-consume --timeout 60000 --print-metrics \
  > "$OUT/consumer.log" 2>&1
T1="$(ticks "$PID")"
thread_ticks "$PID" > "$OUT/threads-after.txt"
if [ -n "$PERFREC" ]; then
  kill -INT "$PERFREC"
  wait "$PERFREC" || true
  # Names the JIT-compiled frames (/tmp/perf-PID.map, read by perf report) while the JVM still runs.
  jcmd "$PID" Compiler.perfmap > /dev/null 2>&1 || true
fi
if [ -n "$TRACER" ]; then
  kill -INT "$TRACER"
  wait "$TRACER" || true
elif [ "${JFR:-1}" = 1 ]; then
  jcmd "$PID" JFR.stop name=consume > /dev/null
fi

CLK_TCK="$(getconf CLK_TCK)"
{
  echo "broker=$BROKER records=$RECORDS"
  echo "broker_cpu_s=$(awk -v a="$T0" -v b="$T1" -v hz="$CLK_TCK" 'BEGIN { printf "%.1f", (b - a) / hz }')"
  grep -E '^[0-9]{4}-[0-9]{2}-[0-9]{2} ' "$OUT/consumer.log" | tail -1 | awk -F', *' \
    '{ printf "records_per_s=%s fetch_mb_per_s=%s\n", $10, $9 }'
  echo "broker CPU-seconds by thread (names with their digits dropped, summed):"
  awk -v hz="$CLK_TCK" 'NR == FNR { before[$1] = $2; next }
      { name = $3; gsub(/[0-9]+/, "#", name); used[name] += ($2 - before[$1]) / hz }
      END { for (n in used) if (used[n] >= 0.05) printf "  %7.2f %s\n", used[n], n }' \
    "$OUT/threads-before.txt" "$OUT/threads-after.txt" | sort -r -n | head -15
  grep -E 'consumer-fetch-manager-metrics:(fetch-total|fetch-size-avg|fetch-size-max|records-per-request-avg|fetch-latency-avg):\{client-id=[^,}]*\}' \
    "$OUT/consumer.log" || true
  if [ -s "$OUT/strace.txt" ]; then
    FETCHES="$(sed -n 's/.*consumer-fetch-manager-metrics:fetch-total:{client-id=[^,}]*}[ :]*\([0-9.E]*\).*/\1/p' \
      "$OUT/consumer.log" | head -1)"
    echo "system calls per fetch (fetches: ${FETCHES:-unknown}):"
    awk -v f="${FETCHES:-0}" '$1 ~ /^[0-9.]+$/ && NF >= 5 {
        printf "  %-16s %10d calls %8.2f per fetch %6s%% of syscall time\n", $NF, $4, (f > 0 ? $4 / f : 0), $1 }' \
      "$OUT/strace.txt" | sort -k2 -n -r | head -15
  fi
} | tee "$OUT/summary.txt"
