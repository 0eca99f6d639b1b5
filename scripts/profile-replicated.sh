#!/usr/bin/env bash
# Profiles Brook's three brokers under the replicated benchmark's "rate" workload
# (scripts/bench-replicated.sh), in the same sequence as that benchmark: three combined nodes,
# topics of PARTITIONS partitions with replication factor 3 and min.insync.replicas=2, a warm-up
# of WARMUP records, MAX records as fast as the producer sends (0 skips it), then Kafka's
# ProducerPerformance at RATE records/s for RATE_SECS seconds (acks=all, RECORD_SIZE bytes,
# linger.ms=LINGER_MS) while every broker records a JFR profile. Between the two, IDLE_SECS
# seconds without clients (after IDLE_SETTLE seconds for the producer's connections to close)
# measure what the nodes spend when nothing is sent: the quorum, heartbeats, idle follower
# fetches and periodic tasks (0 skips it). Writes to OUT (default
# target/profile-replicated-<time>/):
#   node-N.jfr        each broker's recording of the rate phase (settings=profile; JFR_NODES
#                     names the nodes that record, all three by default, none if empty: a
#                     recording costs CPU of its own)
#   requests.txt      requests per API on each broker during the rate phase, from the
#                     kafka_network_requestmetrics_requests_total counters of /metrics
#   producer.txt      the producer's summary line
#   cpu.txt           the brokers' CPU-seconds during the rate phase, and their JIT compiler
#                     threads' part of them
#   threads.txt       their CPU-seconds (user + system) by thread name during the rate phase
#   idle-cpu.txt      the brokers' CPU-seconds during the idle phase
#   idle-threads.txt  the same by thread name
#   idle-requests.txt requests per API on each broker during the idle phase
# Read the recordings with a JDK 21+ jfr (`jfr view hot-methods`, `jfr view allocation-by-site`);
# compare shares of samples, not absolute times, on a shared machine.
#
#   scripts/profile-replicated.sh     env: RATE (5000), RATE_SECS (20), RECORD_SIZE (1024),
#                                          PARTITIONS (6), LINGER_MS (5), WARMUP (125000),
#                                          MAX (500000), IDLE_SECS (60), IDLE_SETTLE (10),
#                                          BASE_PORT (8700), OUT, JFR_SETTINGS (profile),
#                                          JFR_NODES ("1 2 3")
#
# Build first: mvn -B -DskipTests verify (brook.jar and brook-tests' test classes).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
RATE="${RATE:-5000}"
RATE_SECS="${RATE_SECS:-20}"
RECORD_SIZE="${RECORD_SIZE:-1024}"
PARTITIONS="${PARTITIONS:-6}"
LINGER_MS="${LINGER_MS:-5}"
WARMUP="${WARMUP:-125000}"
MAX="${MAX:-500000}"
IDLE_SECS="${IDLE_SECS:-60}"
IDLE_SETTLE="${IDLE_SETTLE:-10}"
JFR_SETTINGS="${JFR_SETTINGS:-profile}"
JFR_NODES="${JFR_NODES-1 2 3}"
# Below 10000: the test-ports helper never hands those out, so tests running meanwhile keep off.
BASE_PORT="${BASE_PORT:-8700}"
OUT="${OUT:-$ROOT/target/profile-replicated-$(date +%Y%m%d-%H%M%S)}"
RESULTS="$OUT/results.txt"
mkdir -p "$OUT"
OUT="$(cd "$OUT" && pwd)"

# shellcheck source=lib/replicated-cluster.sh
. "$ROOT/scripts/lib/replicated-cluster.sh"
trap stop_cluster EXIT

for id in 1 2 3; do
  port=$((BASE_PORT + id * 10))
  for p in "$port" $((port + 1)) $((port + 2)); do
    if (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; then
      echo "port $p is in use; set BASE_PORT" >&2
      exit 1
    fi
  done
done

# "pid tid name ticks" of every thread of the brokers (name: /proc's 15-character comm).
thread_ticks() {
  local id pid task
  for id in 1 2 3; do
    pid=${PIDS[$id]}
    for task in /proc/"$pid"/task/*; do
      # comm may hold spaces: the fields after its closing parenthesis are fixed.
      awk -v n="$id" -v name="$(cat "$task/comm")" -v tid="${task##*/}" \
        '{ sub(/^.*\) /, ""); print n, tid, name, $12 + $13 }' "$task/stat" 2>/dev/null || true
    done
  done
}

admin_port() { echo $((BASE_PORT + $1 * 10 + 2)); }

# Requests per API so far on node $1, as "api count" lines.
request_counts() {
  curl -fsS "http://127.0.0.1:$(admin_port "$1")/metrics" |
    sed -n 's/^kafka_network_requestmetrics_requests_total{request="\([A-Za-z]*\)"[^}]*} \([0-9.eE+]*\)$/\1 \2/p'
}

# "node-N api count" lines: the requests per API between the snapshots $1-N.txt and $2-N.txt.
request_deltas() { # before-prefix after-prefix
  for id in 1 2 3; do
    join -a 2 -e 0 -o 0,1.2,2.2 <(sort "$WORK/$1-$id.txt") <(sort "$WORK/$2-$id.txt") |
      awk -v n="$id" '{ d = $3 - $2; if (d > 0) printf "node-%s %-24s %d\n", n, $1, d }'
  done
}

# CPU-seconds per thread name between two thread_ticks snapshots (digits folded: event-loop-3
# counts as event-loop-N), all nodes together, most first.
thread_deltas() { # before after
  awk -v hz="$(getconf CLK_TCK)" '
    FNR == NR { split($0, f, " "); start[f[1] " " f[2]] = f[NF]; next }
    { split($0, f, " "); key = f[1] " " f[2]; name = "";
      for (i = 3; i < NF; i++) name = name (i > 3 ? "_" : "") f[i];
      gsub(/[0-9]+/, "N", name); used[name] += f[NF] - (key in start ? start[key] : 0) }
    END { for (n in used) if (used[n] > 0) printf "%8.2f %s\n", used[n] / hz, n }' \
    "$1" "$2" | sort -rn
}

cpu_seconds() { # ticks
  awk -v t="$1" -v hz="$(getconf CLK_TCK)" 'BEGIN{printf "%.2f", t / hz}'
}

WORK="$(mktemp -d "${TMPDIR:-/tmp}/brook-profile-replicated.XXXXXX")"
for id in 1 2 3; do
  write_node_config "$WORK" "$id" brook ""
  echo "brook.admin.listener=http://127.0.0.1:$(admin_port "$id")" >>"$WORK/server-$id.properties"
done
for id in 1 2 3; do
  launch_node "$WORK" "$id" brook "$OUT/node-$id.log"
done
"${TOOL[@]}" await-brokers "$BROKERS" 3 "$(date +%s%3N)" >/dev/null
create_topic warmup
create_topic measured
create_topic latency

produce() { # topic records throughput
  "${KJAVA[@]}" org.apache.kafka.tools.ProducerPerformance --topic "$1" --num-records "$2" \
    --record-size "$RECORD_SIZE" --throughput "$3" \
    --producer-props bootstrap.servers="$BROKERS" acks=all linger.ms="$LINGER_MS" 2>&1 | tail -1
}

produce warmup "$WARMUP" -1 >/dev/null
if [ "$MAX" -gt 0 ]; then
  produce measured "$MAX" -1 >/dev/null
fi
if [ "$IDLE_SECS" -gt 0 ]; then
  sleep "$IDLE_SETTLE"
  for id in 1 2 3; do request_counts "$id" >"$WORK/idle-before-$id.txt"; done
  thread_ticks >"$WORK/idle-threads-before.txt"
  before=$(broker_ticks)
  jit_before="$(jit_thread_ticks)"
  sleep "$IDLE_SECS"
  after=$(broker_ticks)
  jit_after="$(jit_thread_ticks)"
  thread_ticks >"$WORK/idle-threads-after.txt"
  for id in 1 2 3; do request_counts "$id" >"$WORK/idle-after-$id.txt"; done
  echo "idle_broker_cpu_s=$(cpu_seconds $((after - before))) idle_broker_jit_cpu_s=$(cpu_seconds "$(jit_ticks_between "$jit_before" "$jit_after")") idle_secs=$IDLE_SECS load=$(cut -d' ' -f1-3 /proc/loadavg)" |
    tee "$OUT/idle-cpu.txt"
  {
    echo "# requests per API during the idle phase ($IDLE_SECS s), per node"
    request_deltas idle-before idle-after
  } | tee "$OUT/idle-requests.txt"
  thread_deltas "$WORK/idle-threads-before.txt" "$WORK/idle-threads-after.txt" |
    tee "$OUT/idle-threads.txt" | head -25
fi
for id in 1 2 3; do
  request_counts "$id" >"$WORK/before-$id.txt"
done
for id in $JFR_NODES; do
  jcmd "${PIDS[$id]}" JFR.start name=rate settings="$JFR_SETTINGS" >/dev/null
done
thread_ticks >"$WORK/threads-before.txt"
before=$(broker_ticks)
jit_before="$(jit_thread_ticks)"
produce latency $((RATE * RATE_SECS)) "$RATE" | tee "$OUT/producer.txt"
after=$(broker_ticks)
jit_after="$(jit_thread_ticks)"
thread_ticks >"$WORK/threads-after.txt"
for id in $JFR_NODES; do
  jcmd "${PIDS[$id]}" JFR.stop name=rate filename="$OUT/node-$id.jfr" >/dev/null
done
for id in 1 2 3; do
  request_counts "$id" >"$WORK/after-$id.txt"
done
echo "broker_cpu_s=$(cpu_seconds $((after - before))) broker_jit_cpu_s=$(cpu_seconds "$(jit_ticks_between "$jit_before" "$jit_after")") load=$(cut -d' ' -f1-3 /proc/loadavg)" |
  tee "$OUT/cpu.txt"
{
  echo "# requests per API during the rate phase ($((RATE * RATE_SECS)) records), per node"
  request_deltas before after
} | tee "$OUT/requests.txt"
thread_deltas "$WORK/threads-before.txt" "$WORK/threads-after.txt" | tee "$OUT/threads.txt"
echo "recordings and logs in $OUT"
