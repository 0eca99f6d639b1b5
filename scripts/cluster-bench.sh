#!/usr/bin/env bash
# Cluster figures on one machine: three combined nodes (separate JVMs, loopback ports, same heap and
# GC flags), Brook (brook.jar) or Apache Kafka (the jars that scripts/bench/setup.sh fetches, KRaft
# with the same static three-voter quorum):
#  1. heap used after a full GC before and after creating TOPICS topics x PARTITIONS partitions
#     (replication factor RF): memory per hosted partition;
#  2. time to create them, and until every broker serves all of them;
#  3. restart of one node (SIGTERM, start again on its data): launch until every other broker lists
#     it again (registered and unfenced), then until every partition has its full ISR again (the
#     node serving everything it hosts); the same after SIGKILL (unclean shutdown: recovery);
#  4. controller failover: SIGKILL the active controller (the quorum leader DescribeQuorum names),
#     time until a topic creation through another broker succeeds.
#
#   scripts/cluster-bench.sh                       # Brook, 2,000 x 12, RF=1
#   BROKER=kafka scripts/cluster-bench.sh          # the same against Apache Kafka
#   TOPICS=200 PARTITIONS=12 RF=3 scripts/cluster-bench.sh
#
# Build first: mvn -B -DskipTests verify (brook.jar and brook-tests' test classes).
# KEEP=1 keeps the data and logs; ONLY=create stops after the creation figures and the idle cost
# (IDLE_SECONDS, 30, of an idle cluster after the creation; 0 skips it). As root, each run
# first drops the page cache (see below); KEEP_CACHES=1 does not. FRESH_FS=1 (root, mkfs.ext4)
# puts the nodes' data on an ext4 file system made for the run (an 8 GiB sparse image, loop-mounted
# under TMPDIR), as on a new disk: the figures then do not depend on what earlier runs deleted.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BROKER="${BROKER:-brook}"
TOPICS="${TOPICS:-2000}"
PARTITIONS="${PARTITIONS:-12}"
RF="${RF:-1}"
BASE_PORT="${BASE_PORT:-19300}"
HEAP="${HEAP:--Xms2g -Xmx2g}"
# shellcheck source=lib/three-nodes.sh
. "$ROOT/scripts/lib/three-nodes.sh"
if [ "$BROKER" = kafka ]; then
  use_kafka_jars
fi

FRESH_MOUNT=""
if [ -n "${FRESH_FS:-}" ]; then
  FRESH_MOUNT="$(mktemp -d "${TMPDIR:-/tmp}/$BROKER-fresh-fs.XXXXXX")"
  truncate -s 8G "$FRESH_MOUNT.img"
  mkfs.ext4 -q -F "$FRESH_MOUNT.img"
  mount -o loop "$FRESH_MOUNT.img" "$FRESH_MOUNT"
fi
WORK="$(mktemp -d "${FRESH_MOUNT:-${TMPDIR:-/tmp}}/$BROKER-cluster-bench.XXXXXX")"
declare -A PIDS
cleanup() {
  for pid in "${PIDS[@]}"; do kill -9 "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
  if [ -n "${KEEP:-}" ]; then
    echo "kept $WORK"
  elif [ -n "$FRESH_MOUNT" ]; then
    umount "$FRESH_MOUNT" && rm -rf "$FRESH_MOUNT" "$FRESH_MOUNT.img"
  else
    rm -rf "$WORK"
  fi
}
trap cleanup EXIT

launch() { # id label
  launch_node "$WORK" "$1" "$BROKER" "$WORK/node-$1-$2.log"
}

# Heap used after a full GC, in KiB.
heap_used_kib() { # pid
  jcmd "$1" GC.run >/dev/null
  jcmd "$1" GC.heap_info | sed -n 's/.*heap.*used \([0-9]*\)K.*/\1/p' | head -1
}

# CPU seconds of a JVM's threads since it started, by thread name without its trailing number (the
# JIT compilers, GC, the metadata publisher, network threads...), the busiest first: sampling
# profilers do not see the JIT compilers, which take a large share while a node warms up.
thread_cpu() { # pid
  # ps reports the whole process's time on the main thread's row (its thread id is the pid): skipped
  ps -L -o lwp=,time=,comm= -p "$1" | awk -v pid="$1" '$1 != pid {
      n = split($2, t, /[-:]/); s = t[n] + 60 * t[n - 1] + 3600 * t[n - 2] + 86400 * (n > 3 ? t[1] : 0)
      name = $3; for (i = 4; i <= NF; i++) name = name "_" $i; sub(/[-#]?[0-9]+$/, "", name)
      cpu[name] += s
    } END { for (k in cpu) print cpu[k], k }' | sort -rn | head -6 | awk '{printf "%s %s s, ", $2, $1}'
}

# CPU seconds (user + system) a process has used so far.
process_cpu() { # pid
  awk -v hz="$(getconf CLK_TCK)" '{ printf "%.1f", ($14 + $15) / hz }' "/proc/$1/stat"
}

# A run deletes a directory and its files per hosted partition (36,000 for 1,000 topics x 12,
# RF 3). For minutes after that, ext4 checks each inode it allocates against the cached
# inode-table blocks of the recently deleted ones (recently_deleted in its inode allocator), which
# made the next run's creation 2-3 times slower, in the kernel, than on a fresh file system. So
# each run starts with the page cache dropped where that is allowed (root), as after a reboot.
if [ -n "${KEEP_CACHES:-}" ]; then
  :
elif [ -w /proc/sys/vm/drop_caches ]; then
  sync
  echo 3 >/proc/sys/vm/drop_caches
else
  echo "page cache not dropped (needs root): a run soon after another is slower" >&2
fi

CLUSTER_ID="$("${TOOL[@]}" uuid)"
for id in 1 2 3; do
  write_node_config "$WORK" "$id" "$BROKER" "$CLUSTER_ID"
done
for id in 1 2 3; do launch "$id" start; done
"${TOOL[@]}" await-brokers "$BROKERS" 3 "$(date +%s%3N)" >/dev/null
echo "== $BROKER: 3 nodes up ($WORK)"

declare -A HEAP_BEFORE CPU_BEFORE
for id in 1 2 3; do HEAP_BEFORE[$id]=$(heap_used_kib "${PIDS[$id]}"); done
for id in 1 2 3; do CPU_BEFORE[$id]=$(process_cpu "${PIDS[$id]}"); done

echo "== creating $TOPICS topics x $PARTITIONS partitions, replication factor $RF"
"${TOOL[@]}" create "$BROKERS" "$TOPICS" "$PARTITIONS" "$RF"
HOSTED=$((TOPICS * PARTITIONS * RF / 3))
declare -A CPU_AFTER
for id in 1 2 3; do CPU_AFTER[$id]=$(process_cpu "${PIDS[$id]}"); done
echo "CPU seconds of the nodes during the creation: $(for id in 1 2 3; do
  awk -v a="${CPU_BEFORE[$id]}" -v b="${CPU_AFTER[$id]}" -v id="$id" \
    'BEGIN { printf "node %s %.1f, ", id, b - a }'
done)"
for id in 1 2 3; do
  pid=${PIDS[$id]}
  after=$(heap_used_kib "$pid")
  echo "node $id: heap used after GC $((HEAP_BEFORE[$id] / 1024)) -> $((after / 1024)) MiB" \
    "($(( (after - HEAP_BEFORE[$id]) * 1024 / HOSTED )) B per hosted partition, $HOSTED hosted)," \
    "RSS $(( $(ps -o rss= -p "$pid") / 1024 )) MiB, open files $(ls /proc/"$pid"/fd | wc -l)"
  echo "node $id: busiest threads since start: $(thread_cpu "$pid")"
done
# What the idle cluster costs: every partition served, no traffic; the followers' fetches of
# their idle partitions, heartbeats and timers. IDLE_SECONDS=0 skips it.
IDLE_SECONDS="${IDLE_SECONDS:-30}"
if [ "$IDLE_SECONDS" -gt 0 ]; then
  sleep 5
  declare -A IDLE_BEFORE
  for id in 1 2 3; do IDLE_BEFORE[$id]=$(process_cpu "${PIDS[$id]}"); done
  sleep "$IDLE_SECONDS"
  echo "idle for ${IDLE_SECONDS} s, CPU seconds per minute: $(for id in 1 2 3; do
    awk -v a="${IDLE_BEFORE[$id]}" -v b="$(process_cpu "${PIDS[$id]}")" -v id="$id" \
      -v s="$IDLE_SECONDS" 'BEGIN { printf "node %s %.1f, ", id, (b - a) * 60 / s }'
  done)"
fi
if [ "${ONLY:-}" = create ]; then exit 0; fi

echo "== restart of node 3 (SIGTERM, then start on its data): launch until every broker lists it"
kill -TERM "${PIDS[3]}"
wait "${PIDS[3]}" 2>/dev/null || true
launched=$(date +%s%3N)
launch 3 restart
"${TOOL[@]}" await-brokers "$BROKERS" 3 "$launched"
"${TOOL[@]}" await-isr "$BROKERS" "$launched"

echo "== restart of node 3 after SIGKILL: launch until every broker lists it, then full ISRs"
kill -KILL "${PIDS[3]}"
wait "${PIDS[3]}" 2>/dev/null || true
launched=$(date +%s%3N)
launch 3 restart-kill
"${TOOL[@]}" await-brokers "$BROKERS" 3 "$launched"
"${TOOL[@]}" await-isr "$BROKERS" "$launched"

echo "== controller failover"
ID_PIDS="1:${PIDS[1]},2:${PIDS[2]},3:${PIDS[3]}"
"${TOOL[@]}" failover "$BROKERS" "$ID_PIDS"
