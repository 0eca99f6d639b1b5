#!/usr/bin/env bash
# The fault campaign: random fault cycles against three Brook nodes (separate JVMs, in network
# namespaces when run as root with iproute2), with workloads and checkers running through every
# cycle. Runs brook-tests' ReplicationFaultCampaign through Maven (offline) and summarises the
# per-cycle results it writes to OUT/cycles.jsonl.
#
#   scripts/fault-campaign.sh [--faults kill,pause-short,...] [--workloads producer,txn,...]
#       [--cycles N] [--minutes T] [--seed S] [--first-cycle C] [--out DIR] [--no-nice]
#   scripts/fault-campaign.sh --summary DIR     # only print (and write) the summary of DIR
#
# Fault classes: kill pause-short pause-long term kill-two kill-all isolate bridge one-way clock
# disk (default: all but clock, which stalls nodes, see docs/reliability.md; the network ones need
# root and iproute2, clock needs libfaketime:
# `apt-get install -y faketime`, disk needs gcc; a class that cannot run is skipped with the
# reason). Workloads: producer (always) plus any of txn groups compacted churn (one per cycle).
# Stops after N cycles or T minutes, whichever comes first (default 50 cycles). A cycle's choices
# depend only on the seed and its number: `--seed S --first-cycle C --cycles 1` repeats cycle C.
# Each cycle is one JSON line in OUT/cycles.jsonl; a failing cycle keeps the node logs under
# OUT/failures/<cycle>/. Cycles accumulate across runs into the same OUT. The summary goes to
# stdout and OUT/summary.md. Needs jq. Build brook-server's jar first is not needed: Maven's
# reactor (-am) builds it.
set -euo pipefail

usage() { sed -n '2,20p' "$0" | sed 's/^# \{0,1\}//'; exit "${1:-0}"; }

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
    echo "| fault class | cycles | acknowledged records | cycles with violations | unwritable window p50 / p99 / max (ms) |"
    echo "|---|---:|---:|---:|---|"
    jq -rs '
      def pct(q): if length == 0 then "-" else .[((q * length) | ceil) - 1] | tostring end;
      def row(name): {
          name: name,
          cycles: length,
          acked: (map(.acknowledged // 0) | add),
          bad: (map(select((.violations | length) > 0)) | length),
          w: (map(.window_ms // -1 | select(. >= 0)) | sort)
        }
        | "| \(.name) | \(.cycles) | \(.acked) | \(.bad) | \(.w | pct(0.5)) / \(.w | pct(0.99)) / \(.w | pct(1)) |";
      (group_by(.fault) | map(row(.[0].fault)) | .[]), row("**all**")' "$jsonl"
    echo
    echo "| workload | cycles | cycles with violations |"
    echo "|---|---:|---:|"
    jq -rs '
      map(. as $c | .workloads[] | {w: ., bad: (($c.violations | length) > 0)})
      | group_by(.w) | .[]
      | "| \(.[0].w) | \(length) | \(map(select(.bad)) | length) |"' "$jsonl"
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
  } | tee "$dir/summary.md"
}

if [ -n "$summary_only" ]; then
  summarise "$summary_only"
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
  "-Dbrook.faults.workloads=$workloads" "-Dbrook.faults.out=$out")
if [ -n "$faults" ]; then
  args+=("-Dbrook.faults.classes=$faults")
fi

echo "fault campaign: seed $seed, cycles ${cycles:-unlimited}, minutes ${minutes:-unlimited}," \
  "faults ${faults:-all}, workloads $workloads; log $out/campaign-$seed.log"
status=0
(cd "$root" && "${nice_cmd[@]}" mvn "${args[@]}") > "$out/campaign-$seed.log" 2>&1 || status=$?
summarise "$out"
if [ "$status" -ne 0 ]; then
  echo "the campaign failed (status $status): see $out/campaign-$seed.log" >&2
fi
exit "$status"
