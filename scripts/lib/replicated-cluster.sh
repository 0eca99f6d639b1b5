# Sourced by the replicated benchmarks (bench-replicated.sh, bench-transactions.sh): starts three
# combined nodes of Brook or of Apache Kafka (separate JVMs, loopback ports, same heap and GC
# flags), creates topics with replication factor 3 and min.insync.replicas=2, counts the brokers'
# CPU time (and that of their JIT compiler threads) and prints median ratios. Needs ROOT (the checkout), PARTITIONS and RESULTS (the result
# file) set by the caller; BENCH, BASE_PORT and HEAP may be overridden (see three-nodes.sh).

# shellcheck source=three-nodes.sh
. "$ROOT/scripts/lib/three-nodes.sh"
use_kafka_jars

mkdir -p "$ROOT/target"
WORK=""
declare -A PIDS
stop_cluster() {
  for pid in "${PIDS[@]}"; do kill -9 "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
  PIDS=()
  [ -n "$WORK" ] && rm -rf "$WORK"
  WORK=""
}

start_cluster() { # broker [property line appended to every node's properties]
  local broker=$1 id cluster_id
  WORK="$(mktemp -d "${TMPDIR:-/tmp}/$broker-replicated-bench.XXXXXX")"
  cluster_id="$("${TOOL[@]}" uuid)"
  for id in 1 2 3; do
    write_node_config "$WORK" "$id" "$broker" "$cluster_id"
    if [ -n "${2:-}" ]; then
      echo "$2" >>"$WORK/server-$id.properties"
    fi
  done
  for id in 1 2 3; do
    launch_node "$WORK" "$id" "$broker" "$WORK/node-$id.log"
  done
  "${TOOL[@]}" await-brokers "$BROKERS" 3 "$(date +%s%3N)" >/dev/null
}

create_topic() { # name
  "${KJAVA[@]}" org.apache.kafka.tools.TopicCommand --bootstrap-server "$BROKERS" --create \
    --topic "$1" --partitions "$PARTITIONS" --replication-factor 3 \
    --config min.insync.replicas=2 >"$WORK/topic-$1.log" 2>&1
}

broker_ticks() {
  local total=0 pid
  for pid in "${PIDS[@]}"; do
    total=$((total + $(awk '{print $14 + $15}' "/proc/$pid/stat")))
  done
  echo "$total"
}

# "tid ticks" of the brokers' JIT compiler threads (HotSpot names them "C1 CompilerThreadN" and
# "C2 CompilerThreadN", cut to 15 characters by /proc). Compilation still under way is warm-up,
# not the steady-state cost of a workload, and on a loaded machine it lasts long into the
# measured phases. Per thread, because HotSpot starts and stops compiler threads as its queue
# grows and shrinks: take the difference of two snapshots with jit_ticks_between.
jit_thread_ticks() {
  local pid task
  for pid in "${PIDS[@]}"; do
    for task in /proc/"$pid"/task/*; do
      case "$(cat "$task/comm" 2>/dev/null)" in
        C1\ CompilerThre* | C2\ CompilerThre*)
          awk -v tid="${task##*/}" '{ sub(/^.*\) /, ""); print tid, $12 + $13 }' "$task/stat" 2>/dev/null || true
          ;;
      esac
    done
  done
}

# The compiler threads' ticks between two jit_thread_ticks snapshots (a thread that stopped
# meanwhile is missing from the second, and what it did after the first is not counted).
jit_ticks_between() { # before after (jit_thread_ticks outputs)
  awk 'FNR == NR { start[$1] = $2; next } { used += $2 - ($1 in start ? start[$1] : 0) }
    END { print used + 0 }' <(echo "$1") <(echo "$2")
}

# Median of every field per broker and workload over the rounds in $RESULTS, with B / A
# (labels A and B: the first field of the result lines; kafka and brook unless given).
print_medians() { # [A B]
  local a="${1:-kafka}" b="${2:-brook}"
  echo "== medians over $ROUNDS rounds (ratio = $b / $a)"
  awk '
    { split($0, f, " "); b = f[1];
      for (i = 4; i <= NF; i++) { k = f[2] "." substr(f[i], 1, index(f[i], "=") - 1);
        v[b, k, ++n[b, k]] = substr(f[i], index(f[i], "=") + 1) + 0; keys[k] = 1 } }
    function median(b, k,   m, i, j, t, a) {
      m = n[b, k]; for (i = 1; i <= m; i++) a[i] = v[b, k, i];
      for (i = 1; i <= m; i++) for (j = i + 1; j <= m; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
      return m % 2 ? a[(m + 1) / 2] : (a[m / 2] + a[m / 2 + 1]) / 2 }
    END { for (k in keys) { ka = median(la, k); kb = median(lb, k);
      printf "%-20s %s=%-10s %s=%-10s ratio=%.2f\n", k, la, ka, lb, kb, (ka > 0 ? kb / ka : 0) } }' \
    la="$a" lb="$b" "$RESULTS" | sort
  echo "(all runs in $RESULTS)"
}
