#!/usr/bin/env bash
# The fault campaign: random fault cycles against three Brook nodes (separate JVMs, in network
# namespaces when run as root with iproute2), with workloads and checkers running through every
# cycle. Runs brook-tests' ReplicationFaultCampaign through Maven (offline) and summarises the
# per-cycle results it writes to OUT/cycles.jsonl.
#
#   scripts/fault-campaign.sh [--faults kill,pause-short,...] [--workloads producer,txn,...]
#       [--cycles N] [--minutes T] [--seed S] [--first-cycle C] [--out DIR] [--no-nice] [--kafka]
#       [--keep-logs]
#   scripts/fault-campaign.sh --summary DIR     # only print (and write) the summary of DIR
#   scripts/fault-campaign.sh --summary DIR1,DIR2,...  # one summary over several runs (a
#       name may also be a cycles file, as those kept in docs/reliability/cycles/)
#
# Fault classes: kill pause-short pause-long term kill-two kill-all isolate bridge one-way slow-link
# lossy-link clock disk full-disk lost-cache listener-cut (default: all; the network ones need root
# and iproute2, lossy-link and listener-cut also iptables, lossy-link python3, clock libfaketime:
# `apt-get install -y faketime`, disk needs gcc, full-disk root, mkfs.ext4 and loop devices (each
# node's data directory is then a loop-mounted 2 GiB ext4 image); a class that cannot run is
# skipped with the reason). Workloads: producer (always) plus any of txn groups compacted churn
# share tiered (one per cycle; tiered runs an S3 server, s3proxy, in the campaign's JVM; share and
# tiered need Brook's nodes, not --kafka).
# Stops after N cycles or T minutes, whichever comes first (default 50 cycles). A cycle's choices
# depend only on the seed and its number: `--seed S --first-cycle C --cycles 1` repeats cycle C.
# Each cycle is one JSON line in OUT/cycles.jsonl; a cycle with violations, after which a node
# had to be restarted to get the cluster whole again, that cost three or more Raft elections, or
# that left a partition without writes for over 3 s after one node crashed keeps the node logs
# under OUT/failures/<cycle>/ (--keep-logs: every cycle's). Cycles accumulate across runs into the
# same OUT. The summary goes to stdout and OUT/summary.md. Needs jq. Build brook-server's jar first is not needed: Maven's
# reactor (-am) builds it. --kafka runs Apache Kafka's nodes (jars fetched by scripts/bench/setup.sh)
# on the same properties, faults, workloads and checkers: the reference for the windows.
set -euo pipefail

usage() { sed -n '2,30p' "$0" | sed 's/^# \{0,1\}//'; exit "${1:-0}"; }

root=$(cd "$(dirname "$0")/.." && pwd)
faults=""
workloads="producer"
cycles=""
minutes=""
seed=""
first=1
out="$root/brook-tests/target/fault-campaign"
nice_cmd=(nice -n 19)
summary_only=""
kafka=""
keep_logs=false

while [ $# -gt 0 ]; do
  case "$1" in
    --faults) faults="$2"; shift 2 ;;
    --workloads) workloads="$2"; shift 2 ;;
    --cycles) cycles="$2"; shift 2 ;;
    --minutes) minutes="$2"; shift 2 ;;
    --seed) seed="$2"; shift 2 ;;
    --first-cycle) first="$2"; shift 2 ;;
    --out) out="$2"; shift 2 ;;
    --no-nice) nice_cmd=(); shift ;;
    --kafka) kafka=1; shift ;;
    --keep-logs) keep_logs=true; shift ;;
    --summary) summary_only="$2"; shift 2 ;;
    -h|--help) usage ;;
    *) echo "unknown argument: $1" >&2; usage 2 ;;
  esac
done

command -v jq >/dev/null || { echo "fault-campaign.sh needs jq (apt-get install -y jq)" >&2; exit 2; }

# Prints the summary of DIR/cycles.jsonl as Markdown and writes it to DIR/summary.md.
summarise() {
  local dir=$1 jsonl=$1/cycles.jsonl
  [ -s "$jsonl" ] || { echo "no cycles in $jsonl"; return 0; }
  {
    # A cycle completed when every checker ran; its violations are the checkers' findings. A
    # restart is a node the recovery after the cycle had to restart (it had exited, or was not a
    # registered, unfenced broker within the bound).
    # The unwritable window is the time until every partition took a write after the fault (its
    # start for crash faults, its end for the others); the longest gap is the longest pause between
    # acknowledged writes of one partition around the fault, which also catches an outage that
    # began after the fault did (a node noticing its failed disk late). Cycles before the gap was
    # recorded show "-".
    echo "| fault class | cycles | completed | cycles with violations | cycles needing a restart | acknowledged records | unwritable window p50 / p99 / max (ms) | longest gap p50 / p99 / max (ms) | Raft elections per cycle p50 / max |"
    echo "|---|---:|---:|---:|---:|---:|---|---|---|"
    jq -rs '
      def pct(q): if length == 0 then "-" else .[((q * length) | ceil) - 1] | tostring end;
      def completed: .checks.cycle != "incomplete";
      def restarted: ((.recovery // []) | map(select(.action != "none")) | length) > 0;
      def row(name): {
          name: name,
          cycles: length,
          completed: (map(select(completed)) | length),
          bad: (map(select(completed and (.violations | length) > 0)) | length),
          restarted: (map(select(restarted)) | length),
          acked: (map(.acknowledged // 0) | add),
          w: (map(.window_ms // -1 | select(. >= 0)) | sort),
          g: (map(.longest_gap_ms // -1 | select(. >= 0)) | sort),
          e: (map(.raft_elections // -1 | select(. >= 0)) | sort)
        }
        | "| \(.name) | \(.cycles) | \(.completed) | \(.bad) | \(.restarted) | \(.acked) | \(.w | pct(0.5)) / \(.w | pct(0.99)) / \(.w | pct(1)) | \(.g | pct(0.5)) / \(.g | pct(0.99)) / \(.g | pct(1)) | \(.e | pct(0.5)) / \(.e | pct(1)) |";
      (group_by(.fault) | map(row(.[0].fault)) | .[]), row("**all**")' "$jsonl"
    echo
    echo "| workload | cycles | completed | cycles with violations |"
    echo "|---|---:|---:|---:|"
    jq -rs '
      map(. as $c | .workloads[]
        | {w: ., done: ($c.checks.cycle != "incomplete"), bad: (($c.violations | length) > 0)})
      | group_by(.w) | .[]
      | "| \(.[0].w) | \(length) | \(map(select(.done)) | length) | \(map(select(.done and .bad)) | length) |"' "$jsonl"
    echo
    jq -rs '"Seeds: \(map(.seed) | unique | map(tostring) | join(", ")); cycles \(length),"
      + " from \(map(.started) | min) to \(map(.started) | max)."' "$jsonl"
    local failing
    failing=$(jq -rs 'map(select((.violations | length) > 0)) | .[]
      | "- cycle \(.cycle) (seed \(.seed), \(.fault)): \(.violations | join("; ") | .[0:300])"' "$jsonl")
    if [ -n "$failing" ]; then
      echo
      echo "Cycles with violations (logs under failures/<cycle>/):"
      echo
      echo "$failing"
    fi
    local restarts
    restarts=$(jq -rs 'map(select((.recovery // []) | length > 0)) | .[]
      | "- cycle \(.cycle) (seed \(.seed), \(.fault)): \(.recovery | map("node \(.node): \(.reason) -> \(.action)") | join("; ") | .[0:300])"' "$jsonl")
    if [ -n "$restarts" ]; then
      echo
      echo "Recovery after cycles (logs under failures/<cycle>/):"
      echo
      echo "$restarts"
    fi
  } | tee "$dir/summary.md"
}

if [ -n "$summary_only" ]; then
  if [[ "$summary_only" == *,* ]] || [ -f "$summary_only" ]; then
    # Several runs, or a cycles file: one summary over all their cycles, written to a directory
    # of its own.
    combined=$(mktemp -d)
    IFS=',' read -r -a dirs <<< "$summary_only"
    for d in "${dirs[@]}"; do
      if [ -f "$d" ]; then
        cat "$d" >> "$combined/cycles.jsonl"   # a cycles file kept on its own (docs/reliability/)
      else
        cat "$d/cycles.jsonl" >> "$combined/cycles.jsonl"
      fi
    done
    summarise "$combined"
    echo
    echo "(written to $combined/summary.md)"
  else
    summarise "$summary_only"
  fi
  exit 0
fi

if [ -z "$cycles" ] && [ -z "$minutes" ]; then
  cycles=50
fi
seed=${seed:-$(( $(date +%s) % 1000000 ))}
mkdir -p "$out"
out=$(cd "$out" && pwd)

args=(-o -B -pl brook-tests -am verify -Pfault-campaign
  -Dspotless.check.skip=true -Dtest=none -Dsurefire.failIfNoSpecifiedTests=false
  -Dit.test=ReplicationFaultCampaign -Dfailsafe.failIfNoSpecifiedTests=false
  "-Dbrook.faults.cycles=${cycles:-0}" "-Dbrook.faults.minutes=${minutes:-0}"
  "-Dbrook.faults.seed=$seed" "-Dbrook.faults.firstCycle=$first"
  "-Dbrook.faults.workloads=$workloads" "-Dbrook.faults.out=$out"
  "-Dbrook.faults.keepLogs=$keep_logs")
if [ -n "$faults" ]; then
  args+=("-Dbrook.faults.classes=$faults")
fi
if [ -n "$kafka" ]; then
  # shellcheck source=bench/common.sh
  . "$root/scripts/bench/common.sh"
  ensure_jars
  args+=("-Dbrook.cluster.kafkaLib=$LIB_DIR")
fi

echo "fault campaign${kafka:+ (Apache Kafka)}: seed $seed, cycles ${cycles:-unlimited}, minutes ${minutes:-unlimited}," \
  "faults ${faults:-all}, workloads $workloads; log $out/campaign-$seed.log"
status=0
(cd "$root" && "${nice_cmd[@]}" mvn "${args[@]}") > "$out/campaign-$seed.log" 2>&1 || status=$?
summarise "$out"
if [ "$status" -ne 0 ]; then
  echo "the campaign failed (status $status): see $out/campaign-$seed.log" >&2
fi
exit "$status"
