#!/usr/bin/env bash
# Interleaved A/B comparison: runs run.sh against A, then B, ROUNDS times (A,B,A,B,...), then prints
# per workload the medians and the ratio B/A (throughput: >1 means B is faster; latency: >1 means B is
# slower), with the min..max of the per-round paired ratios as a noise indicator.
#   ./compare.sh BOOTSTRAP_A BOOTSTRAP_B
# env: ROUNDS (3), LABEL_A (A), LABEL_B (B), plus everything run.sh reads (WORKLOADS, RECORDS, ...).
#      MAX_OTHER_CPU=0.3: report only samples during which other processes used <= 0.3 cores.
#   ./compare.sh --report out/results/compare-XXXX.txt   re-prints the report of an earlier comparison
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/common.sh"   # relocates to a writable copy if this folder is read-only
HERE="$BENCH_DIR"
report() { # report FILE LABEL_A LABEL_B
  "$HERE/summarize.sh" "$1"
  echo
  grep '^workload=' "$1" | awk -v A="$2" -v B="$3" -v maxother="${MAX_OTHER_CPU:-}" '
  function med(arr, n,   i, j, t) {
    for (i = 2; i <= n; i++) { t = arr[i]; for (j = i - 1; j >= 1 && arr[j] > t; j--) arr[j+1] = arr[j]; arr[j+1] = t }
    return (n % 2) ? arr[(n+1)/2] : (arr[n/2] + arr[n/2+1]) / 2
  }
  BEGIN { nm = split("records_per_s mb_per_s p50_ms p99_ms p999_ms broker_cpu_s", M, " ") }
  {
    delete kv
    for (i = 1; i <= NF; i++) { p = index($i, "="); if (p) kv[substr($i, 1, p-1)] = substr($i, p+1) }
    if (maxother != "" && kv["other_cpu"] ~ /^[0-9.]+$/ && kv["other_cpu"] + 0 > maxother + 0) next
    w = kv["workload"]; if (!(w in seen)) { seen[w] = 1; ws[++nw] = w }
    r = kv["round"]; if (r == "") r = ++auto[kv["label"], w]
    for (m = 1; m <= nm; m++) { v = kv[M[m]]; if (v ~ /^[0-9.]+$/) x[kv["label"], w, M[m], r] = v + 0 }
    if (r > maxr) maxr = r
  }
  END {
    printf "%-20s %-14s %12s %12s %9s %19s\n", "workload", "metric", "median " A, "median " B, "B/A", "paired B/A min..max"
    for (k = 1; k <= nw; k++) for (m = 1; m <= nm; m++) {
      w = ws[k]; na = nb = np = 0; delete a; delete b; delete pr
      for (r = 1; r <= maxr; r++) {
        ha = ((A, w, M[m], r) in x); hb = ((B, w, M[m], r) in x)
        if (ha) a[++na] = x[A, w, M[m], r]
        if (hb) b[++nb] = x[B, w, M[m], r]
        if (ha && hb && x[A, w, M[m], r] > 0) pr[++np] = x[B, w, M[m], r] / x[A, w, M[m], r]
      }
      if (!na || !nb) continue
      ma = med(a, na); mb = med(b, nb); if (np) med(pr, np)
      printf "%-20s %-14s %12.2f %12.2f %9s %19s\n", w, M[m], ma, mb, (ma > 0 ? sprintf("%.3f", mb / ma) : "-"),
        (np ? sprintf("%.3f..%.3f", pr[1], pr[np]) : "-")
    }
  }'
}
if [ "${1:-}" = "--report" ]; then report "$2" "${LABEL_A:-A}" "${LABEL_B:-B}"; exit 0; fi
A="${1:?usage: compare.sh BOOTSTRAP_A BOOTSTRAP_B}"; B="${2:?usage: compare.sh BOOTSTRAP_A BOOTSTRAP_B}"
ROUNDS="${ROUNDS:-3}"; LA="${LABEL_A:-A}"; LB="${LABEL_B:-B}"
mkdir -p "$RES_DIR"
OUT="$RES_DIR/compare-$(date +%Y%m%d-%H%M%S).txt"
for r in $(seq 1 "$ROUNDS"); do
  echo "# round $r/$ROUNDS: $LA=$A" >&2
  ROUND=$r RESULTS_FILE="$OUT" "$HERE/run.sh" "$A" "$LA" > /dev/null
  echo "# round $r/$ROUNDS: $LB=$B" >&2
  ROUND=$r RESULTS_FILE="$OUT" "$HERE/run.sh" "$B" "$LB" > /dev/null
done
echo "# results: ${OUT#$HERE/}"
report "$OUT" "$LA" "$LB"
