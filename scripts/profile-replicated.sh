#!/usr/bin/env bash
# Profiles Brook's three brokers under the replicated benchmark's "rate" workload
# (scripts/bench-replicated.sh), in the same sequence as that benchmark: three combined nodes,
# topics of PARTITIONS partitions with replication factor 3 and min.insync.replicas=2, a warm-up
# of WARMUP records, MAX records as fast as the producer sends (0 skips it), then Kafka's
# ProducerPerformance at RATE records/s for RATE_SECS seconds (acks=all, RECORD_SIZE bytes,
# linger.ms=LINGER_MS) while every broker records a JFR profile. Writes to OUT (default
# target/profile-replicated-<time>/):
#   node-N.jfr        each broker's recording of the rate phase (settings=profile)
#   requests.txt      requests per API on each broker during the rate phase, from the
#                     kafka_network_requestmetrics_requests_total counters of /metrics
#   producer.txt      the producer's summary line
#   cpu.txt           the brokers' CPU-seconds during the rate phase
#   threads.txt       their CPU-seconds (user + system) by thread name during the rate phase
# Read the recordings with a JDK 21+ jfr (`jfr view hot-methods`, `jfr view allocation-by-site`);
# compare shares of samples, not absolute times, on a shared machine.
#
#   scripts/profile-replicated.sh     env: RATE (5000), RATE_SECS (20), RECORD_SIZE (1024),
#                                          PARTITIONS (6), LINGER_MS (5), WARMUP (125000),
#                                          MAX (500000),
#                                          BASE_PORT (8700), OUT, JFR_SETTINGS (profile)
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
JFR_SETTINGS="${JFR_SETTINGS:-profile}"
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
for id in 1 2 3; do
  request_counts "$id" >"$WORK/before-$id.txt"
  jcmd "${PIDS[$id]}" JFR.start name=rate settings="$JFR_SETTINGS" >/dev/null
done
thread_ticks >"$WORK/threads-before.txt"
before=$(broker_ticks)
produce latency $((RATE * RATE_SECS)) "$RATE" | tee "$OUT/producer.txt"
after=$(broker_ticks)
thread_ticks >"$WORK/threads-after.txt"
for id in 1 2 3; do
  jcmd "${PIDS[$id]}" JFR.stop name=rate filename="$OUT/node-$id.jfr" >/dev/null
  request_counts "$id" >"$WORK/after-$id.txt"
done
echo "broker_cpu_s=$(awk -v t=$((after - before)) -v hz="$(getconf CLK_TCK)" 'BEGIN{printf "%.1f", t / hz}')" |
  tee "$OUT/cpu.txt"
{
  echo "# requests per API during the rate phase ($((RATE * RATE_SECS)) records), per node"
  for id in 1 2 3; do
    join -a 2 -e 0 -o 0,1.2,2.2 <(sort "$WORK/before-$id.txt") <(sort "$WORK/after-$id.txt") |
      awk -v n="$id" '{ d = $3 - $2; if (d > 0) printf "node-%s %-24s %d\n", n, $1, d }'
  done
} | tee "$OUT/requests.txt"
# Per thread name (digits folded: event-loop-3 counts as event-loop-N), all nodes together.
awk -v hz="$(getconf CLK_TCK)" '
  FNR == NR { split($0, f, " "); start[f[1] " " f[2]] = f[NF]; next }
  { split($0, f, " "); key = f[1] " " f[2]; name = "";
    for (i = 3; i < NF; i++) name = name (i > 3 ? "_" : "") f[i];
    gsub(/[0-9]+/, "N", name); used[name] += f[NF] - (key in start ? start[key] : 0) }
  END { for (n in used) if (used[n] > 0) printf "%8.2f %s\n", used[n] / hz, n }' \
  "$WORK/threads-before.txt" "$WORK/threads-after.txt" | sort -rn | tee "$OUT/threads.txt"
echo "recordings and logs in $OUT"
