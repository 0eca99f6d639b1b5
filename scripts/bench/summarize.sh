#!/usr/bin/env bash
# Median / min / max / n per (label, workload) of the run.sh result lines in the given files.
#   ./summarize.sh out/results/kafka.txt [more files...]
#   METRICS="records_per_s mb_per_s p50_ms p99_ms p999_ms broker_cpu client_cpu other_cpu broker_cpu_s" (default)
#   MAX_OTHER_CPU=0.2  only use samples during which other processes used at most 0.2 cores (quiet samples)
METRICS="${METRICS:-records_per_s mb_per_s p50_ms p99_ms p999_ms broker_cpu client_cpu other_cpu broker_cpu_s}"
cat "$@" | grep '^workload=' | awk -v metrics="$METRICS" -v maxother="${MAX_OTHER_CPU:-}" '
function med(arr, n,   i, j, t) {           # sorts arr[1..n] in place, returns median
  for (i = 2; i <= n; i++) { t = arr[i]; for (j = i - 1; j >= 1 && arr[j] > t; j--) arr[j+1] = arr[j]; arr[j+1] = t }
  return (n % 2) ? arr[(n+1)/2] : (arr[n/2] + arr[n/2+1]) / 2
}
function fmt(x) { return (x >= 1000) ? sprintf("%.0f", x) : (x >= 10 ? sprintf("%.1f", x) : sprintf("%.3g", x)) }
BEGIN { nm = split(metrics, M, " ") }
{
  delete kv
  for (i = 1; i <= NF; i++) { p = index($i, "="); if (p) kv[substr($i, 1, p-1)] = substr($i, p+1) }
  if (maxother != "" && kv["other_cpu"] ~ /^[0-9.]+$/ && kv["other_cpu"] + 0 > maxother + 0) { dropped++; next }
  key = kv["label"] SUBSEP kv["workload"]
  if (!(key in seen)) { seen[key] = 1; order[++nk] = key }
  for (m = 1; m <= nm; m++) {
    v = kv[M[m]]
    if (v != "" && v != "na" && v ~ /^-?[0-9.]+([eE][-+]?[0-9]+)?$/) { c = ++cnt[key, M[m]]; val[key, M[m], c] = v + 0 }
  }
}
END {
  if (maxother != "") printf "# MAX_OTHER_CPU=%s: %d sample(s) left out\n", maxother, dropped
  printf "%-10s %-30s %-14s %3s %12s %12s %12s %8s\n", "label", "workload", "metric", "n", "median", "min", "max", "spread%"
  for (k = 1; k <= nk; k++) {
    key = order[k]; split(key, lw, SUBSEP)
    for (m = 1; m <= nm; m++) {
      n = cnt[key, M[m]]; if (!n) continue
      delete a; for (i = 1; i <= n; i++) a[i] = val[key, M[m], i]
      md = med(a, n)
      printf "%-10s %-30s %-14s %3d %12s %12s %12s %8s\n", lw[1], lw[2], M[m], n, fmt(md), fmt(a[1]), fmt(a[n]),
        (md != 0 ? sprintf("%.0f", 100 * (a[n] - a[1]) / md) : "-")
    }
  }
}'
