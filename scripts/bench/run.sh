#!/usr/bin/env bash
# Standard workloads against any Kafka-protocol broker; one machine-readable line per workload on stdout.
#   ./run.sh BOOTSTRAP [LABEL]          e.g. ./run.sh 127.0.0.1:19092 kafka
# Lines are also appended to out/results/LABEL.txt; raw tool output goes to out/results/raw/LABEL-RUNID/.
#
# Workloads (default order):
#   produce-acks1-1k    ProducerPerformance, 1 KiB random records, acks=1,  linger.ms=5, no compression
#   produce-acksall-1k  same with acks=all (idempotent producer, the client default)
#   produce-lz4-json    same as acks=1 with compression.type=lz4, ~1 KiB JSON order events (gen-orders.sh)
#   consume-1k          ConsumerPerformance reads back all of produce-acks1-1k's topic (one group)
#   fanout-4groups      4 ConsumerPerformance processes, 4 groups, read that topic concurrently
#   e2e-5k              io.brook.bench.harness.E2eLatency: open-loop 5000 rec/s x 1 KiB, acks=all, linger.ms=0, 5 s warm-up + 20 s
#   e2e-pingpong        (optional) official EndToEndLatency: one record at a time, 10000 records (ms-granular pcts)
# Before them, WARMUP_N (500000) records are produced and consumed, unreported, to warm a fresh broker.
# All topics: 6 partitions, replication factor 1, created per run and deleted at the end.
#
# env: WORKLOADS="produce-acks1-1k consume-1k ..." (subset/order), RECORDS (3000000), WARMUP_FRACTION (0.2),
#      PARTITIONS (6), E2E_RATE (5000), E2E_SECS (20), FANOUT_GROUPS (4), PAUSE_S (1, before each workload),
#      WARMUP_N (500000; 0 = no broker warm-up), QUIET_BUSY_PCT (25) / QUIET_MAX_WAIT_S (20): before each
#      workload wait until the machine is at most that busy (2 s sample; field pre_busy_pct),
#      SYNC_BEFORE (1: write out the page cache's dirty pages before each workload; 0 skips it),
#      BROKER_PID (for broker CPU accounting; auto-detected with `ss` for a local port when possible),
#      CLIENT_CONFIG (a client properties file every tool and client uses, e.g. TLS from tls-setup.sh),
#      KEEP_TOPICS=1, RESULTS_FILE (default out/results/LABEL.txt), ROUND (tag added to lines), KAFKA_VERSION,
#      JAVA_HOME, CLIENT_JVM_OPTS.
#
# Output fields: records_per_s, mb_per_s (MB = 2^20 bytes, as the Kafka tools count; uncompressed payload
# bytes), p50_ms/p99_ms/p999_ms (producer: send-to-ack latency of the steady-state part; e2e: send-to-receive),
# plus wall_s, broker_cpu / client_cpu / other_cpu (average cores used by the broker, by this script's
# client processes, by everything else on the machine; averaged over the workload's wall time, client JVM
# start-up included), machine_busy_pct (all cores), broker_cpu_s / client_cpu_s (CPU seconds spent on the
# workload: same work for any broker, so broker_cpu_s is an efficiency figure) and workload extras; the
# consume workloads add fetches and fetch_kb_avg (the consumers' own fetch-total and fetch-size-avg:
# equal counts against two brokers mean they answered the same fetches).
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/common.sh"

BOOT="${1:?usage: run.sh BOOTSTRAP [LABEL]}"
LABEL="${2:-${BOOT//[^A-Za-z0-9._-]/_}}"
RECORDS="${RECORDS:-3000000}"
WARMUP_FRACTION="${WARMUP_FRACTION:-0.2}"
PARTITIONS="${PARTITIONS:-6}"
E2E_RATE="${E2E_RATE:-5000}"
E2E_SECS="${E2E_SECS:-20}"
FANOUT_GROUPS="${FANOUT_GROUPS:-4}"
PAUSE_S="${PAUSE_S:-1}"
WARMUP_N="${WARMUP_N:-500000}"
QUIET_BUSY_PCT="${QUIET_BUSY_PCT:-25}"
QUIET_MAX_WAIT_S="${QUIET_MAX_WAIT_S:-20}"
WORKLOADS="${WORKLOADS:-produce-acks1-1k produce-acksall-1k produce-lz4-json consume-1k fanout-4groups e2e-5k}"
ensure_jars

RUN_ID="$(date +%Y%m%d-%H%M%S)-$$"
mkdir -p "$RES_DIR"
RAW="$RES_DIR/raw/$LABEL-$RUN_ID"
mkdir -p "$RAW"
OUT_FILE="${RESULTS_FILE:-$RES_DIR/$LABEL.txt}"
PAYLOAD="$RES_DIR/orders-20000.jsonl"
[ -s "$PAYLOAD" ] || "$BENCH_DIR/gen-orders.sh" 20000 > "$PAYLOAD"
TOPIC_PREFIX="bench-$RUN_ID"
T_MAIN="$TOPIC_PREFIX-1k"
WARMUP_RECORDS="$(awk -v n="$RECORDS" -v f="$WARMUP_FRACTION" 'BEGIN { printf "%d", n * f }')"
CLK_TCK="$(getconf CLK_TCK)"
NCPU="$(getconf _NPROCESSORS_ONLN)"

log() { echo "# $(date +%T) $*" >&2; }

# ---- broker pid (optional, for CPU accounting) -------------------------------------------------------
BPORT="${BOOT##*:}"; BPORT="${BPORT%%,*}"
if [ -z "${BROKER_PID:-}" ] && command -v ss >/dev/null 2>&1; then
  BROKER_PID="$(ss -Hltnp "sport = :$BPORT" 2>/dev/null | sed -n 's/.*pid=\([0-9]*\).*/\1/p' | head -1 || true)"
fi
BROKER_PID="${BROKER_PID:-}"

# ---- CPU accounting helpers ------------------------------------------------------------------------
proc_ticks() { # utime+stime (own) of pid, or 0
  [ -n "$1" ] && [ -r "/proc/$1/stat" ] || { echo 0; return; }
  sed 's/^.*) //' "/proc/$1/stat" | awk '{ print $12 + $13 }'
}
children_ticks() { sed 's/^.*) //' "/proc/$$/stat" | awk '{ print $14 + $15 }'; }   # waited-for children
machine_ticks() { awk '/^cpu / { busy = $2+$3+$4+$7+$8+$9; tot = busy+$5+$6; print busy, tot }' /proc/stat; }
now_ms() { date +%s%3N; }
cpu_begin() { C_T0="$(now_ms)"; C_B0="$(proc_ticks "$BROKER_PID")"; C_C0="$(children_ticks)"; C_M0="$(machine_ticks)"; }
cpu_end() {   # prints "wall_s=.. broker_cpu=.. client_cpu=.. machine_busy_pct=.."
  local t1 b1 c1 m1
  t1="$(now_ms)"; b1="$(proc_ticks "$BROKER_PID")"; c1="$(children_ticks)"; m1="$(machine_ticks)"
  awk -v t0="$C_T0" -v t1="$t1" -v b0="$C_B0" -v b1="$b1" -v c0="$C_C0" -v c1="$c1" -v hz="$CLK_TCK" \
      -v m0="$C_M0" -v m1="$m1" -v havepid="${BROKER_PID:+1}" -v ncpu="$NCPU" 'BEGIN {
    w = (t1 - t0) / 1000.0; split(m0, a, " "); split(m1, b, " ");
    busy = (b[2] - a[2]) > 0 ? 100.0 * (b[1] - a[1]) / (b[2] - a[2]) : 0;
    bc = (b1 - b0) / hz / w; cc = (c1 - c0) / hz / w; oc = busy / 100.0 * ncpu - cc - (havepid ? bc : 0);
    printf "wall_s=%.1f broker_cpu=%s client_cpu=%.2f other_cpu=%s machine_busy_pct=%.0f broker_cpu_s=%s client_cpu_s=%.1f", w,
      (havepid ? sprintf("%.2f", bc) : "na"), cc, (havepid ? sprintf("%.2f", (oc < 0 ? 0 : oc)) : "na"), busy,
      (havepid ? sprintf("%.2f", (b1 - b0) / hz) : "na"), (c1 - c0) / hz }'
}

# Shared machines: before each workload wait (up to QUIET_MAX_WAIT_S) until the whole machine is at most
# QUIET_BUSY_PCT busy over a 2 s sample, so other tenants' bursts spoil fewer samples.
PRE_BUSY=na
wait_quiet() {
  local waited=0 m0 m1 busy
  # The dirty pages of earlier runs are written out first, whichever broker wrote them: Kafka
  # deletes a topic's files a minute after the topic (file.delete.delay.ms), Brook at once, so
  # without this a run after Kafka's would start with the kernel writing back Kafka's last run.
  [ "${SYNC_BEFORE:-1}" = 0 ] || sync
  while :; do
    m0="$(machine_ticks)"; sleep 2; m1="$(machine_ticks)"
    busy="$(awk -v a="$m0" -v b="$m1" 'BEGIN { split(a, x, " "); split(b, y, " "); d = y[2] - x[2];
                                               printf "%.0f", (d > 0 ? 100 * (y[1] - x[1]) / d : 0) }')"
    if [ "$busy" -le "$QUIET_BUSY_PCT" ] || [ "$waited" -ge "$QUIET_MAX_WAIT_S" ]; then break; fi
    [ "$waited" -gt 0 ] || log "machine ${busy}% busy before the next workload (> ${QUIET_BUSY_PCT}%); waiting up to ${QUIET_MAX_WAIT_S}s"
    sleep 3; waited=$((waited + 5))
  done
  PRE_BUSY="$busy"
}

emit() { # emit WORKLOAD "fields..."
  local line="workload=$1 label=$LABEL run=$RUN_ID${ROUND:+ round=$ROUND} $2 pre_busy_pct=$PRE_BUSY"
  echo "$line"; echo "$line" >> "$OUT_FILE"
}

# ---- tool flag compatibility (older Kafka tools use the deprecated names) --------------------------
PP_HELP="$(kjava org.apache.kafka.tools.ProducerPerformance --help 2>&1 || true)"
if grep -q -- '--command-property' <<<"$PP_HELP"; then PP_PROPS="--command-property"; else PP_PROPS="--producer-props"; fi
if grep -q -- '--warmup-records' <<<"$PP_HELP"; then PP_WARM=(--warmup-records "$WARMUP_RECORDS"); else PP_WARM=(); fi
# ProducerPerformance before 4.x-ish has no --bootstrap-server: bootstrap.servers also goes into the props
if grep -q -- '--bootstrap-server' <<<"$PP_HELP"; then PP_BOOT=(--bootstrap-server "$BOOT"); else PP_BOOT=(); fi
CP_HELP="$(kjava org.apache.kafka.tools.ConsumerPerformance --help 2>&1 || true)"
if grep -q -- '--num-records' <<<"$CP_HELP"; then CP_NUM="--num-records"; else CP_NUM="--messages"; fi
# CLIENT_CONFIG (e.g. security.protocol=SSL and a truststore) goes to every tool, under its own flag name
PP_CONF=(); CP_CONF=(); ADMIN_CONF=(); E2E_CONF=(); PING_CONF=()
if [ -n "${CLIENT_CONFIG:-}" ]; then
  [ -r "$CLIENT_CONFIG" ] || { echo "CLIENT_CONFIG $CLIENT_CONFIG is not readable" >&2; exit 1; }
  if grep -q -- '--command-config' <<<"$PP_HELP"; then PP_CONF=(--command-config "$CLIENT_CONFIG"); else PP_CONF=(--producer.config "$CLIENT_CONFIG"); fi
  if grep -q -- '--command-config' <<<"$CP_HELP"; then CP_CONF=(--command-config "$CLIENT_CONFIG"); else CP_CONF=(--consumer.config "$CLIENT_CONFIG"); fi
  ADMIN_CONF=(--command-config "$CLIENT_CONFIG"); E2E_CONF=(--client-config "$CLIENT_CONFIG"); PING_CONF=("$CLIENT_CONFIG")
fi

# ---- topics -----------------------------------------------------------------------------------------
create_topic() {
  kjava org.apache.kafka.tools.TopicCommand --bootstrap-server "$BOOT" "${ADMIN_CONF[@]}" --create --if-not-exists \
    --topic "$1" --partitions "$PARTITIONS" --replication-factor 1 >> "$RAW/admin.log" 2>&1 \
    || { log "could not create topic $1 (see $RAW/admin.log)"; return 1; }
}
cleanup() {
  if [ "${KEEP_TOPICS:-0}" != "1" ]; then
    kjava org.apache.kafka.tools.TopicCommand --bootstrap-server "$BOOT" "${ADMIN_CONF[@]}" --delete --topic "$TOPIC_PREFIX-.*" \
      >> "$RAW/admin.log" 2>&1 || log "topic cleanup failed (see $RAW/admin.log)"
  fi
}
trap cleanup EXIT

MAIN_READY=0
# ---- workloads ----------------------------------------------------------------------------------------
produce() { # produce NAME TOPIC REPORT(1/0) producer-props... [-- extra ProducerPerformance args]
  local name="$1" topic="$2" report="$3"; shift 3
  local props=() extra=()
  while [ $# -gt 0 ] && [ "$1" != "--" ]; do props+=("$1"); shift; done
  [ "${1:-}" = "--" ] && shift && extra=("$@")
  [ ${#extra[@]} -gt 0 ] || extra=(--record-size 1024)
  create_topic "$topic"
  log "$name: $RECORDS records -> $topic"
  cpu_begin
  kjava org.apache.kafka.tools.ProducerPerformance "${PP_BOOT[@]}" --topic "$topic" \
    --num-records "$RECORDS" --throughput -1 "${PP_WARM[@]}" "${PP_CONF[@]}" "${extra[@]}" \
    "$PP_PROPS" "bootstrap.servers=$BOOT" "${props[@]}" > "$RAW/$name.log" 2>&1 || { log "$name failed:"; tail -5 "$RAW/$name.log" >&2; return 1; }
  local cpu; cpu="$(cpu_end)"
  [ "$report" = 1 ] || return 0
  # prefer the steady-state summary (after warm-up records) when the tool prints one
  local sum
  sum="$(grep 'steady state records sent' "$RAW/$name.log" | tail -1)"
  [ -n "$sum" ] || sum="$(grep -E '^[0-9]+ records sent, .*99.9th' "$RAW/$name.log" | tail -1)"
  [ -n "$sum" ] || { log "$name: no summary line (see $RAW/$name.log)"; return 1; }
  local f
  f="$(awk '{
      for (i = 1; i <= NF; i++) {
        if ($i == "records/sec") rps = $(i-1);
        if ($i ~ /^\(/) { mb = substr($i, 2) }
        if ($i ~ /^50th/) p50 = $(i-2);
        if ($i ~ /^99th/) p99 = $(i-2);
        if ($i ~ /^99.9th/) p999 = $(i-2);
        if ($i == "avg" && $(i+1) ~ /^latency/) avg = $(i-2);
        if ($i == "max" && $(i+1) ~ /^latency/) mx = $(i-2);
      }
      printf "records_per_s=%.0f mb_per_s=%.2f p50_ms=%s p99_ms=%s p999_ms=%s avg_ms=%s max_ms=%s", rps, mb, p50, p99, p999, avg, mx
    }' <<<"$sum")"
  emit "$name" "$f $cpu"
}

ensure_main_topic() {
  if [ "$MAIN_READY" = 0 ]; then
    log "(preparing $T_MAIN for the consumer workloads)"
    produce prep-produce "$T_MAIN" 0 acks=1 linger.ms=5 compression.type=none || return 1
    MAIN_READY=1
  fi
}

# ConsumerPerformance CSV: start, end, MB, MB.sec, nMsg, nMsg.sec, rebalance.ms, fetch.ms, fetch.MB.sec, fetch.nMsg.sec
consume_cmd() { # consume_cmd GROUP LOGFILE
  kjava org.apache.kafka.tools.ConsumerPerformance --bootstrap-server "$BOOT" "${CP_CONF[@]}" --topic "$T_MAIN" \
    "$CP_NUM" "$RECORDS" --group "$1" --timeout 30000 --date-format "yyyy-MM-dd HH:mm:ss.SSS" --print-metrics > "$2" 2>&1
}
csv_line() { grep -E '^[0-9]{4}-[0-9]{2}-[0-9]{2} ' "$1" | tail -1; }
# The consumer's own fetch metrics (the same whichever broker answers): fetch requests sent and their
# average response size, summed / averaged over the given ConsumerPerformance logs.
fetch_fields() {
  awk '/consumer-fetch-manager-metrics:fetch-total:\{client-id=[^,}]*\}/ { n += $NF; k++ }
       /consumer-fetch-manager-metrics:fetch-size-avg:\{client-id=[^,}]*\}/ { s += $NF; j++ }
       END { printf "fetches=%d fetch_kb_avg=%.0f", n, (j ? s / j / 1024 : 0) }' "$@"
}

consume() {
  ensure_main_topic || return 1
  log "consume-1k: 1 group reads $RECORDS records from $T_MAIN"
  cpu_begin
  consume_cmd "$TOPIC_PREFIX-c1" "$RAW/consume-1k.log" || { log "consume failed"; tail -5 "$RAW/consume-1k.log" >&2; return 1; }
  local cpu; cpu="$(cpu_end)"
  local f
  f="$(csv_line "$RAW/consume-1k.log" | awk -F', *' '{
      printf "records_per_s=%.0f mb_per_s=%.2f p50_ms=na p99_ms=na p999_ms=na records=%d rebalance_ms=%d mb_per_s_incl_join=%.2f", $10, $9, $5, $7, $4 }')"
  case "$f" in ""|*" records=0 "*) log "consume: no records read (see $RAW/consume-1k.log)"; return 1 ;; esac
  emit consume-1k "$f $(fetch_fields "$RAW/consume-1k.log") $cpu"
}

fanout() {
  ensure_main_topic || return 1
  local g pids=()
  log "fanout-${FANOUT_GROUPS}groups: $FANOUT_GROUPS groups each read $RECORDS records from $T_MAIN"
  cpu_begin
  for g in $(seq 1 "$FANOUT_GROUPS"); do
    consume_cmd "$TOPIC_PREFIX-f$g" "$RAW/fanout-$g.log" & pids+=($!)
  done
  local ok=1 p
  for p in "${pids[@]}"; do wait "$p" || ok=0; done
  local cpu; cpu="$(cpu_end)"
  [ "$ok" = 1 ] || { log "a fan-out consumer failed (see $RAW/fanout-*.log)"; return 1; }
  local f
  f="$(for g in $(seq 1 "$FANOUT_GROUPS"); do csv_line "$RAW/fanout-$g.log"; done | awk -F', *' '
      function ms(s,   cmd, r) { cmd = "date -d \"" s "\" +%s%3N"; cmd | getline r; close(cmd); return r + 0 }
      { s = ms($1); e = ms($2); if (min == "" || s < min) min = s; if (max == "" || e > max) max = e;
        mb += $3; n += $5; k++; if (lo == "" || $9 < lo) lo = $9 }
      END { span = (max - min) / 1000.0;
        printf "records_per_s=%.0f mb_per_s=%.2f p50_ms=na p99_ms=na p999_ms=na groups=%d total_records=%d span_s=%.1f slowest_group_mb_per_s=%.2f",
          n / span, mb / span, k, n, span, lo }')"
  case "$f" in ""|*" total_records=0 "*) log "fan-out: no records read (see $RAW/fanout-*.log)"; return 1 ;; esac
  emit "fanout-${FANOUT_GROUPS}groups" "$f $(fetch_fields "$RAW"/fanout-*.log) $cpu"
}

e2e() {
  local topic="$TOPIC_PREFIX-e2e"
  create_topic "$topic"
  log "e2e-5k: $E2E_RATE rec/s x 1 KiB, acks=all, linger.ms=0, 5 s warm-up + $E2E_SECS s"
  cpu_begin
  kjava io.brook.bench.harness.E2eLatency --bootstrap-server "$BOOT" "${E2E_CONF[@]}" --topic "$topic" --rate "$E2E_RATE" --record-size 1024 \
    --warmup-s 5 --duration-s "$E2E_SECS" --producer-prop acks=all --producer-prop linger.ms=0 \
    > "$RAW/e2e-5k.log" 2>&1 || { log "e2e failed"; tail -5 "$RAW/e2e-5k.log" >&2; return 1; }
  local cpu; cpu="$(cpu_end)"
  local f
  f="$(grep '^sent=' "$RAW/e2e-5k.log" | tail -1 | tr ' ' '\n' | awk -F= '{ v[$1] = $2 }
      END { printf "records_per_s=%.0f mb_per_s=%.2f p50_ms=%s p99_ms=%s p999_ms=%s avg_ms=%s max_ms=%s received=%s/%s",
        v["achieved_rate"], v["achieved_rate"] * 1024 / 1048576, v["p50_ms"], v["p99_ms"], v["p999_ms"], v["avg_ms"], v["max_ms"], v["received"], v["sent"] }')"
  emit e2e-5k "$f $cpu"
}

pingpong() {
  local topic="$TOPIC_PREFIX-pp"
  create_topic "$topic"
  log "e2e-pingpong: EndToEndLatency, 10000 x 1 KiB, acks=all, one at a time"
  cpu_begin
  kjava org.apache.kafka.tools.EndToEndLatency "$BOOT" "$topic" 10000 all 1024 "${PING_CONF[@]}" > "$RAW/e2e-pingpong.log" 2>&1 \
    || { log "pingpong failed"; tail -5 "$RAW/e2e-pingpong.log" >&2; return 1; }
  local cpu; cpu="$(cpu_end)"
  local f
  f="$(awk '/^Avg latency/ { avg = $3 } /^Percentiles/ { gsub(",", ""); p50 = $4; p99 = $7; p999 = $10 }
      END { printf "records_per_s=%.0f mb_per_s=na p50_ms=%s p99_ms=%s p999_ms=%s avg_ms=%s", 1000 / avg, p50, p99, p999, avg }' "$RAW/e2e-pingpong.log")"
  emit e2e-pingpong "$f $cpu"
}

log "run $RUN_ID label=$LABEL bootstrap=$BOOT kafka-tools=$KAFKA_VERSION broker_pid=${BROKER_PID:-unknown} records=$RECORDS"
if [ "$WARMUP_N" -gt 0 ]; then
  # warm the broker (JIT, page cache, connections) so the first workload is not penalised; not reported
  log "warm-up (not reported): $WARMUP_N records produced and consumed"
  create_topic "$TOPIC_PREFIX-warmup"
  kjava org.apache.kafka.tools.ProducerPerformance "${PP_BOOT[@]}" "${PP_CONF[@]}" --topic "$TOPIC_PREFIX-warmup" \
    --num-records "$WARMUP_N" --record-size 1024 --throughput -1 "$PP_PROPS" "bootstrap.servers=$BOOT" acks=1 linger.ms=5 \
    > "$RAW/warmup.log" 2>&1 \
    && kjava org.apache.kafka.tools.ConsumerPerformance --bootstrap-server "$BOOT" "${CP_CONF[@]}" --topic "$TOPIC_PREFIX-warmup" \
      "$CP_NUM" "$WARMUP_N" --group "$TOPIC_PREFIX-warmup" --timeout 30000 >> "$RAW/warmup.log" 2>&1 \
    || log "warm-up failed (see $RAW/warmup.log)"
fi
for w in $WORKLOADS; do
  sleep "$PAUSE_S"
  wait_quiet
  case "$w" in
    produce-acks1-1k)   produce produce-acks1-1k "$T_MAIN" 1 acks=1 linger.ms=5 compression.type=none && MAIN_READY=1 ;;
    produce-acksall-1k) produce produce-acksall-1k "$TOPIC_PREFIX-acksall" 1 acks=all linger.ms=5 compression.type=none ;;
    produce-lz4-json)   produce produce-lz4-json "$TOPIC_PREFIX-lz4" 1 acks=1 linger.ms=5 compression.type=lz4 -- --payload-file "$PAYLOAD" ;;
    consume-1k)         consume ;;
    fanout-*groups)     fanout ;;
    e2e-5k)             e2e ;;
    e2e-pingpong)       pingpong ;;
    *) log "unknown workload $w" ;;
  esac || log "workload $w failed"
done
log "done; lines appended to ${OUT_FILE#$BENCH_DIR/}, raw output in ${RAW#$BENCH_DIR/}"
