#!/usr/bin/env bash
# Tiered storage benchmark (KIP-405) on one combined node: how fast closed segments go up to the
# remote store, how fast a consumer replays from offset 0 out of remote storage (cold and warm)
# against the same replay from local disk, and how long a restart takes with most of the data
# remote, against the same data all local and against only the local part.
#
# Starts brook-server/target/brook.jar on a temporary directory and loopback ports, and, with
# STORE=s3 (the default), s3proxy as its own process from the Maven artifact the tests use
# (org.gaul:s3proxy, filesystem provider, objects under the same temporary directory), reached
# through io.brook.storage.s3.S3SegmentStore; STORE=localfs uses LocalFsSegmentStore instead. The
# client is scripts/bench/TieredBenchClient.java (with BenchClients.java), compiled once with javac
# against kafka-clients from ~/.m2. Steps, each printing one line per figure:
#
#   disk           sequential write bandwidth of the disk under the temporary directory, with dd:
#                  O_DIRECT (the device) and buffered + fdatasync (what a buffered writer gets)
#   restart-small  LOCAL_MIB in a plain topic: restarted RUNS times after SIGTERM and after SIGKILL
#   produce        LOCAL_MIB + REMOTE_MIB into a plain topic (acks=1, 256 KiB batches)
#   restart-all-local   that topic restarted the same way
#   replay-local-cold/warm  a consumer reads REPLAY_MIB from offset 0 (REPLAY_MIB / PARTITIONS from
#                  each partition): cold = broker restarted and the page cache dropped, warm = again
#   upload         the topic altered to remote.storage.enable=true with local.retention.bytes set
#                  so that about LOCAL_MIB stays local: bytes of the closed segments / time from the
#                  alter to the broker's last "Copied a segment" log line (one broker: per broker)
#   restart-tiered the tiered topic (about LOCAL_MIB local, REMOTE_MIB remote) restarted the same way
#   replay-remote-cold/warm  the same replay, now out of remote storage; cold = broker restarted (its
#                  remote index and chunk caches are emptied at start) and the page cache dropped
#                  (the store's files and the local segments); warm replays more than the chunk
#                  cache's 1 GiB by default, so most of it is fetched from the store again
#
# A restart line has "listed" (seconds from the process start until Metadata names every
# partition with a leader), "serving" (until the first record of every partition, from its
# earliest offset, so remote storage on the tiered topic, and a record produced with acks=all to
# every partition have been read back) and "load_ms" (the broker's own "Loaded logs" duration).
# The page cache is dropped before every restart and cold replay when /proc/sys/vm/drop_caches is
# writable (root); otherwise every line says cache=kept. Targets: restart-tiered <= restart-small;
# replay-remote >= 50 % of replay-local.
#
#   mvn -o -B -q install -DskipTests                   # once: brook.jar, and s3proxy in ~/.m2
#   scripts/bench-tiered.sh                            # 20 GiB remote + 1 GiB local, ~45 GB of disk
#   REMOTE_MIB=1024 LOCAL_MIB=256 REPLAY_MIB=512 SEGMENT_MIB=16 RUNS=1 scripts/bench-tiered.sh
#   OUT=docs/bench/tiered-$(date +%F).txt scripts/bench-tiered.sh   # also keeps the output there
#
# env: REMOTE_MIB (20480), LOCAL_MIB (1024), PARTITIONS (6), SEGMENT_MIB (64), RECORD_SIZE (1024),
#      REPLAY_MIB (4096), FETCH_BYTES (max.partition.fetch.bytes of the replay, 1048576), RUNS (3),
#      DISK_MIB (4096, for dd), STORE (s3 | localfs), PORT (19392; PORT+1 controller, PORT+2
#      s3proxy), BROKER_OPTS (JVM flags; default the harness's 1 GiB heap and G1 flags),
#      EXTRA_PROPS (more broker properties, one per line, e.g. a chunk cache size), KEEP=1
#      (keep the temporary directory), OUT (a file that gets a copy of everything printed).
# Needs JDK 17+, Maven (for s3proxy's class path; offline once its plugin is in ~/.m2), dd, and free space under
# ${TMPDIR:-/tmp} for the data twice over at the peak (local copy being uploaded + remote copy).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
JAR="${JAR:-$ROOT/brook-server/target/brook.jar}"
REMOTE_MIB="${REMOTE_MIB:-20480}"
LOCAL_MIB="${LOCAL_MIB:-1024}"
PARTITIONS="${PARTITIONS:-6}"
SEGMENT_MIB="${SEGMENT_MIB:-64}"
RECORD_SIZE="${RECORD_SIZE:-1024}"
REPLAY_MIB="${REPLAY_MIB:-4096}"
FETCH_BYTES="${FETCH_BYTES:-1048576}"
RUNS="${RUNS:-3}"
DISK_MIB="${DISK_MIB:-4096}"
STORE="${STORE:-s3}"
PORT="${PORT:-19392}"
CONTROLLER_PORT=$((PORT + 1))
S3_PORT=$((PORT + 2))
BROKER_OPTS="${BROKER_OPTS:--Xms1g -Xmx1g -XX:+UseG1GC -XX:MaxGCPauseMillis=20 -XX:InitiatingHeapOccupancyPercent=35 -XX:+ExplicitGCInvokesConcurrent -Djava.awt.headless=true}"
M2="${M2_REPO:-$HOME/.m2/repository}"
CLIENT_LIBS="$M2/org/apache/kafka/kafka-clients/4.4.0/kafka-clients-4.4.0.jar:$M2/org/slf4j/slf4j-api/1.7.36/slf4j-api-1.7.36.jar"
JAVA="${JAVA_HOME:+$JAVA_HOME/bin/}java"
JAVAC="${JAVA_HOME:+$JAVA_HOME/bin/}javac"
BOOTSTRAP="127.0.0.1:$PORT"
MIB=1048576

if [ -n "${OUT:-}" ]; then
  mkdir -p "$(dirname "$OUT")"
  exec > >(tee "$OUT") 2>&1
fi

[ -f "$JAR" ] || { echo "missing $JAR: mvn -o -B -q install -DskipTests" >&2; exit 1; }
case "$STORE" in s3 | localfs) ;; *) echo "STORE must be s3 or localfs" >&2; exit 1 ;; esac
for p in "$PORT" "$CONTROLLER_PORT" "$S3_PORT"; do
  if (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; then
    echo "port $p is in use; set PORT=... (PORT to PORT+2 are used)" >&2
    exit 1
  fi
done
if [ $((REPLAY_MIB * 2)) -gt "$REMOTE_MIB" ]; then
  echo "REPLAY_MIB ($REPLAY_MIB) must be at most half of REMOTE_MIB ($REMOTE_MIB): the replay must stay in remote data" >&2
  exit 1
fi

WORK="$(mktemp -d "${TMPDIR:-/tmp}/brook-bench-tiered.XXXXXX")"
BROKER_PID=""
S3_PID=""
cleanup() {
  for pid in "$BROKER_PID" "$S3_PID"; do
    if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then
      kill -9 "$pid" 2>/dev/null || true
      wait "$pid" 2>/dev/null || true
    fi
  done
  if [ -z "${KEEP:-}" ]; then rm -rf "$WORK"; else echo "kept $WORK"; fi
}
trap cleanup EXIT

now_ms() { date +%s%3N; }
log() { echo "# $(date -u +%T) $*"; }
RESULTS="$WORK/results.txt"
emit() { echo "$*" | tee -a "$RESULTS"; }
mib() { awk -v b="$1" 'BEGIN { printf "%.0f", b / 1048576 }'; }

# The client, compiled once (a single-file launch would compile it inside every timed probe).
mkdir -p "$WORK/client"
"$JAVAC" -nowarn -d "$WORK/client" -cp "$CLIENT_LIBS" \
  "$ROOT/scripts/bench/TieredBenchClient.java" "$ROOT/scripts/bench/BenchClients.java"
client() {
  "$JAVA" -XX:TieredStopAtLevel=1 -Xmx512m -cp "$WORK/client:$CLIENT_LIBS" TieredBenchClient \
    "$@" 2>>"$WORK/client.log"
}

# A client command failed: say why (the broker's state, the client's log) and stop.
client_failed() {
  broker_alive
  echo "client failed; the end of $WORK/client.log:" >&2
  tail -20 "$WORK/client.log" >&2
  exit 1
}

# cpu_s PID...: CPU seconds (user + system) the processes have used so far.
cpu_s() {
  local pid ticks=0
  for pid in "$@"; do
    [ -n "$pid" ] || continue
    ticks=$((ticks + $(awk '{ print $14 + $15 }' "/proc/$pid/stat")))
  done
  awk -v t="$ticks" -v hz="$(getconf CLK_TCK)" 'BEGIN { printf "%.1f", t / hz }'
}

CACHE=kept
drop_caches() {
  sync
  if { echo 3 >/proc/sys/vm/drop_caches; } 2>/dev/null; then CACHE=dropped; else CACHE=kept; fi
}

# ---- the remote store ----

case "$STORE" in
  s3)
    CP_FILE="$ROOT/brook-storage-s3/target/s3proxy-classpath.txt"
    if [ ! -s "$CP_FILE" ] || [ "$ROOT/pom.xml" -nt "$CP_FILE" ]; then
      log "resolving s3proxy's class path (brook-storage-s3's test scope) into $CP_FILE"
      # Offline first; a fresh machine may not have the dependency plugin yet.
      (cd "$ROOT" && { mvn -B -q -f brook-storage-s3/pom.xml dependency:build-classpath \
        -Dmdep.includeScope=test -Dmdep.outputFile="$CP_FILE" >/dev/null 2>&1 \
        || mvn -B -q -f brook-storage-s3/pom.xml dependency:build-classpath \
        -Dmdep.includeScope=test -Dmdep.outputFile="$CP_FILE"; })
    fi
    mkdir -p "$WORK/s3/brook" # the bucket: a directory of the filesystem provider
    cat >"$WORK/s3proxy.properties" <<PROPS
s3proxy.endpoint=http://127.0.0.1:$S3_PORT
s3proxy.authorization=aws-v2-or-v4
s3proxy.identity=access
s3proxy.credential=secret
jclouds.provider=filesystem
jclouds.identity=access
jclouds.credential=secret
jclouds.filesystem.basedir=$WORK/s3
PROPS
    "$JAVA" -Xmx512m -cp "$(cat "$CP_FILE")" org.gaul.s3proxy.Main \
      --properties "$WORK/s3proxy.properties" >"$WORK/s3proxy.log" 2>&1 &
    S3_PID=$!
    for _ in $(seq 1 300); do
      (exec 3<>"/dev/tcp/127.0.0.1/$S3_PORT") 2>/dev/null && break
      kill -0 "$S3_PID" 2>/dev/null || { cat "$WORK/s3proxy.log" >&2; exit 1; }
      sleep 0.1
    done
    REMOTE_DIR="$WORK/s3"
    STORE_PROPS="remote.log.storage.manager.class.name=io.brook.storage.s3.S3SegmentStore
rsm.config.s3.bucket=brook
rsm.config.s3.endpoint.override=http://127.0.0.1:$S3_PORT
rsm.config.s3.path.style.access=true
rsm.config.s3.access.key.id=access
rsm.config.s3.secret.access.key=secret"
    ;;
  localfs)
    REMOTE_DIR="$WORK/remote"
    STORE_PROPS="remote.log.storage.manager.class.name=io.brook.storage.remote.LocalFsSegmentStore
rsm.config.dir=$REMOTE_DIR"
    ;;
esac

# ---- the broker ----

# write_config DATA_DIR: server.properties for a node on DATA_DIR (tiering on, for every phase).
write_config() {
  cat >"$WORK/server.properties" <<PROPS
node.id=1
process.roles=broker,controller
listeners=PLAINTEXT://127.0.0.1:$PORT,CONTROLLER://127.0.0.1:$CONTROLLER_PORT
advertised.listeners=PLAINTEXT://127.0.0.1:$PORT
controller.listener.names=CONTROLLER
controller.quorum.voters=1@127.0.0.1:$CONTROLLER_PORT
log.dirs=$1
log.segment.delete.delay.ms=0
remote.log.storage.system.enable=true
remote.log.manager.task.interval.ms=1000
$STORE_PROPS
${EXTRA_PROPS:-}
PROPS
}

BROKER_LOG=""
START_MS=0
start_broker() { # LABEL
  BROKER_LOG="$WORK/broker-$1.log"
  START_MS="$(now_ms)"
  # shellcheck disable=SC2086
  "$JAVA" $BROKER_OPTS -jar "$JAR" server "$WORK/server.properties" >"$BROKER_LOG" 2>&1 &
  BROKER_PID=$!
}

stop_broker() { # SIGNAL
  kill "-$1" "$BROKER_PID"
  wait "$BROKER_PID" 2>/dev/null || true # (bash would report a SIGKILLed job as "Killed")
  BROKER_PID=""
}

broker_alive() {
  kill -0 "$BROKER_PID" 2>/dev/null || { echo "broker exited:" >&2; tail -50 "$BROKER_LOG" >&2; exit 1; }
}

# dir_bytes DIR...: bytes of the segment files in partition directories (deleted ones not counted).
dir_bytes() {
  find "$@" -name '*.log' -printf '%s\n' | awk '{ s += $1 } END { printf "%.0f\n", s }'
}

# local_bytes DATA TOPIC: bytes of the topic's segment files on local disk.
local_bytes() {
  dir_bytes "$1/$2"-*
}

remote_bytes() {
  find "$REMOTE_DIR" -type f -name '*.log' -printf '%s\n' 2>/dev/null | awk '{ s += $1 } END { printf "%.0f\n", s }'
}

# restarts LABEL TOPIC DATA: RUNS x (SIGTERM + start, SIGKILL + start), each probed until serving.
restarts() {
  local label="$1" topic="$2" data="$3" n kind signal line load
  log "restarts ($label): $(mib "$(local_bytes "$data" "$topic")") MiB local, $(mib "$(remote_bytes)") MiB remote"
  for n in $(seq 1 "$RUNS"); do
    for kind in clean kill; do
      if [ "$kind" = clean ]; then signal=TERM; else signal=KILL; fi
      stop_broker "$signal"
      drop_caches
      start_broker "$label-$kind-$n"
      line="$(client probe "$BOOTSTRAP" "$topic" "$PARTITIONS" "$START_MS")" || client_failed
      load="$(grep -o 'Loaded logs.*durationMs=[0-9]*' "$BROKER_LOG" | grep -o '[0-9]*$' | head -1 || true)"
      emit "restart-$label kind=$kind run=$n $line load_ms=${load:-?} cache=$CACHE"
    done
  done
}

# replay: one replay from offset 0; prints the client's line and the CPU seconds the broker (and
# s3proxy) spent on it.
replay() {
  local topic="$1" line b0 s0
  b0="$(cpu_s "$BROKER_PID")"
  s0="$(cpu_s "$S3_PID")"
  line="$(client replay "$BOOTSTRAP" "$topic" "$PARTITIONS" $((REPLAY_MIB * MIB)) "$FETCH_BYTES")" || client_failed
  echo "$line broker_cpu_s=$(awk -v a="$b0" -v b="$(cpu_s "$BROKER_PID")" 'BEGIN { printf "%.1f", b - a }')" \
    "s3proxy_cpu_s=$(awk -v a="$s0" -v b="$(cpu_s "$S3_PID")" 'BEGIN { printf "%.1f", b - a }')"
}

# replays LABEL TOPIC: cold (broker restarted, page cache dropped) then warm.
replays() {
  local label="$1" topic="$2" line
  stop_broker TERM
  drop_caches
  start_broker "replay-$label"
  client probe-listed "$BOOTSTRAP" "$topic" "$PARTITIONS" "$START_MS" >/dev/null || client_failed
  line="$(replay "$topic")"
  emit "replay-$label-cold $line cache=$CACHE"
  line="$(replay "$topic")"
  emit "replay-$label-warm $line"
}

# ---- disk ----

dd_rate() { # dd arguments...: MiB/s from dd's summary line
  dd if=/dev/zero of="$WORK/dd.dat" bs=1M count="$DISK_MIB" "$@" 2>&1 | tail -1 |
    awk '{ for (i = 1; i <= NF; i++) if ($i ~ /^s,?$/) s = $(i - 1); printf "%.1f", $1 / 1048576 / s }'
  rm -f "$WORK/dd.dat"
}

log "work dir $WORK ($(df -T "$WORK" | awk 'NR == 2 { print $2 }')), store $STORE, $PARTITIONS partitions, ${SEGMENT_MIB} MiB segments, ${RECORD_SIZE}-byte records"
drop_caches
[ "$CACHE" = dropped ] || log "/proc/sys/vm/drop_caches is not writable: the page cache is never dropped (cache=kept)"
DISK_DIRECT="$(dd_rate oflag=direct)"
emit "disk-write-direct mb=$DISK_MIB mb_per_s=$DISK_DIRECT"
DISK_SYNC="$(dd_rate conv=fdatasync)"
emit "disk-write-fdatasync mb=$DISK_MIB mb_per_s=$DISK_SYNC"

# ---- LOCAL_MIB all local ----

TOPIC=bench
SEGMENT_BYTES=$((SEGMENT_MIB * MIB))
write_config "$WORK/data-small"
start_broker setup-small
client create "$BOOTSTRAP" "$TOPIC" "$PARTITIONS" "$SEGMENT_BYTES" >/dev/null || client_failed
line="$(client fill "$BOOTSTRAP" "$TOPIC" "$PARTITIONS" $((LOCAL_MIB * MIB)) "$RECORD_SIZE")" || client_failed
emit "produce-small $line"
restarts small "$TOPIC" "$WORK/data-small"
stop_broker TERM
rm -rf "$WORK/data-small"

# ---- LOCAL_MIB + REMOTE_MIB all local ----

DATA="$WORK/data"
write_config "$DATA"
start_broker setup
client create "$BOOTSTRAP" "$TOPIC" "$PARTITIONS" "$SEGMENT_BYTES" >/dev/null || client_failed
line="$(client fill "$BOOTSTRAP" "$TOPIC" "$PARTITIONS" $(((LOCAL_MIB + REMOTE_MIB) * MIB)) "$RECORD_SIZE")" || client_failed
emit "produce $line"
restarts all-local "$TOPIC" "$DATA"
replays local "$TOPIC"

# ---- upload ----

# Closed segments (every segment file but each partition's last, the active one), all uploaded.
SEGMENTS=0
SEGMENT_TOTAL=0
for dir in "$DATA/$TOPIC"-*; do
  read -r n b < <(find "$dir" -name '*.log' -size +0 -printf '%f %s\n' | sort | head -n -1 |
    awk '{ n++; s += $2 } END { printf "%d %.0f\n", n, s }')
  SEGMENTS=$((SEGMENTS + n))
  SEGMENT_TOTAL=$((SEGMENT_TOTAL + b))
done
# Kept locally per partition: at least the retention, less than that plus a segment.
RETENTION=$((LOCAL_MIB * MIB / PARTITIONS - SEGMENT_BYTES / 2))
[ "$RETENTION" -ge "$MIB" ] || RETENTION=$MIB
drop_caches
log "upload: $SEGMENTS closed segments, $(mib "$SEGMENT_TOTAL") MiB; local.retention.bytes=$RETENTION per partition"
UPLOAD_START="$(now_ms)"
client tier "$BOOTSTRAP" "$TOPIC" "$RETENTION" >/dev/null || client_failed
copied=0
progress_at=$SECONDS
while [ "$copied" -lt "$SEGMENTS" ]; do
  broker_alive
  now="$(grep -c 'Copied a segment to remote storage' "$BROKER_LOG" || true)"
  if [ "$now" -gt "$copied" ]; then copied=$now; progress_at=$SECONDS; fi
  if [ $((SECONDS - progress_at)) -gt 300 ]; then
    echo "no segment copied for 300 s ($copied of $SEGMENTS):" >&2
    grep -A5 'Remote copy, expiry or compaction failed' "$BROKER_LOG" | tail -20 >&2
    exit 1
  fi
  sleep 0.5
done
LAST="$(grep 'Copied a segment to remote storage' "$BROKER_LOG" | tail -1 | awk '{ print $1 }')"
UPLOAD_END="$(date -d "$(echo "$LAST" | tr 'T,' ' .')" +%s%3N)"
UPLOAD_S="$(awk -v a="$UPLOAD_START" -v b="$UPLOAD_END" 'BEGIN { printf "%.1f", (b - a) / 1000 }')"
UPLOAD_RATE="$(awk -v s="$SEGMENT_TOTAL" -v t="$UPLOAD_S" 'BEGIN { printf "%.1f", s / 1048576 / t }')"
FAILURES="$(grep -c 'Remote copy, expiry or compaction failed' "$BROKER_LOG" || true)"
emit "upload segments=$SEGMENTS bytes=$SEGMENT_TOTAL seconds=$UPLOAD_S mb_per_s=$UPLOAD_RATE failed_tasks=$FAILURES cache=$CACHE"
# Local retention runs after each copy task: wait until every partition is down to it.
waited=$SECONDS
until [ "$(for dir in "$DATA/$TOPIC"-*; do dir_bytes "$dir"; done |
  awk -v max=$((RETENTION + SEGMENT_BYTES)) '$1 >= max { n++ } END { print n + 0 }')" = 0 ]; do
  broker_alive
  if [ $((SECONDS - waited)) -gt 300 ]; then
    log "local retention has not brought every partition under $(mib $((RETENTION + SEGMENT_BYTES))) MiB after 300 s; going on"
    break
  fi
  sleep 0.5
done

restarts tiered "$TOPIC" "$DATA"
replays remote "$TOPIC"
stop_broker TERM
if [ -n "$S3_PID" ]; then kill "$S3_PID"; wait "$S3_PID" 2>/dev/null || true; S3_PID=""; fi

# ---- summary ----

median() { sort -g | awk '{ a[NR] = $1 } END { print (NR ? a[int((NR + 1) / 2)] : "?") }'; }
field() { # LINE_PREFIX FIELD [KIND]: the field's values on the result lines starting with LINE_PREFIX
  awk -v p="$1" -v f="$2" -v k="${3:-}" '$1 == p && (k == "" || index($0, " kind=" k " ")) {
    for (i = 2; i <= NF; i++) { split($i, kv, "="); if (kv[1] == f) print kv[2] } }' "$RESULTS"
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b + 0 > 0) printf "%.2f", a / b; else print "?" }'; }

echo
echo "| tiered storage, $STORE store, $PARTITIONS partitions | figure | against | ratio |"
echo "|---|---|---|---|"
echo "| upload (MiB/s, one broker) | $UPLOAD_RATE | disk write O_DIRECT $DISK_DIRECT, buffered+fdatasync $DISK_SYNC | $(ratio "$UPLOAD_RATE" "$DISK_DIRECT") of O_DIRECT |"
for temp in cold warm; do
  r="$(field "replay-remote-$temp" mb_per_s)"
  l="$(field "replay-local-$temp" mb_per_s)"
  echo "| replay $temp, remote (MiB/s; first byte ms) | $r; $(field "replay-remote-$temp" ttfb_ms) | local $l; $(field "replay-local-$temp" ttfb_ms) | $(ratio "$r" "$l") (target >= 0.5) |"
done
for kind in clean kill; do
  for what in listed serving; do
    t="$(field restart-tiered "$what" "$kind" | median)"
    s="$(field restart-small "$what" "$kind" | median)"
    a="$(field restart-all-local "$what" "$kind" | median)"
    echo "| restart $kind, $what (s, median of $RUNS) | tiered $t | ${LOCAL_MIB} MiB local $s; all $((LOCAL_MIB + REMOTE_MIB)) MiB local $a | $(ratio "$t" "$s") of ${LOCAL_MIB} MiB local (target <= 1) |"
  done
done
