#!/usr/bin/env bash
# Physical limits of this machine, to see how close a broker gets to them. Each test REPS times.
#   ./limits.sh            (needs fio, iperf3; optional: gcc, sysbench; Debian: apt-get install fio iperf3 sysbench)
# env: REPS (3), LIMITS_DIR (scratch dir for the disk tests; default ${TMPDIR:-/tmp}/bench-limits-$$),
#      DISK_GIB (4), TESTS (subset of: disk fsync mem net)
# Prints run.sh-style lines (workload=... label=limits mb_per_s=... [p50_ms=...]) and appends them to
# out/results/limits.txt; then a median/min/max summary. MB = 2^20 bytes.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/common.sh"
REPS="${REPS:-3}"
DISK_GIB="${DISK_GIB:-4}"
TESTS="${TESTS:-disk fsync mem net}"
SCRATCH="${LIMITS_DIR:-${TMPDIR:-/tmp}/bench-limits-$$}"
OUT="$RES_DIR/limits.txt"
mkdir -p "$SCRATCH" "$RES_DIR"
IPERF_PID=""
cleanup() { rm -rf "$SCRATCH"; if [ -n "$IPERF_PID" ]; then kill "$IPERF_PID" 2>/dev/null || true; fi; }
trap cleanup EXIT
RUN_ID="$(date +%Y%m%d-%H%M%S)-$$"
emit() { local l="workload=$1 label=limits run=$RUN_ID $2"; echo "$l"; echo "$l" >> "$OUT"; }
need() { command -v "$1" >/dev/null 2>&1 || { echo "# $1 not installed; skipping $2" >&2; return 1; }; }
log() { echo "# $(date +%T) $*" >&2; }

fio_bw() { # fio_bw NAME RW(read|write) fio-args... -> MiB/s
  local rw="$2"; shift 2
  fio --name=lim --filename="$SCRATCH/seq.dat" --bs=1M --size="${DISK_GIB}G" --ioengine=psync "--rw=$rw" \
    --output-format=json "$@" 2>/dev/null | jq -r ".jobs[0].$rw.bw_bytes / 1048576 * 10 | floor / 10"
}

disk() {
  need fio "disk tests" && need jq "disk tests" || return 0
  log "disk: sequential 1 MiB blocks, ${DISK_GIB} GiB file in $SCRATCH (fs: $(df -T "$SCRATCH" | awk 'NR==2 {print $2}'))"
  for r in $(seq 1 "$REPS"); do
    rm -f "$SCRATCH/seq.dat"
    emit disk-write-buffered-fdatasync "rep=$r mb_per_s=$(fio_bw w write --end_fsync=1)"   # = dd conv=fdatasync
    rm -f "$SCRATCH/seq.dat"
    emit disk-write-buffered-nosync "rep=$r mb_per_s=$(fio_bw w write)"                     # page cache absorbs it
    sync
    rm -f "$SCRATCH/seq.dat"
    emit disk-write-direct "rep=$r mb_per_s=$(fio_bw w write --direct=1)"                   # O_DIRECT, device
    emit disk-read-direct "rep=$r mb_per_s=$(fio_bw r read --direct=1)"                     # O_DIRECT, device
    emit disk-read-buffered-cold "rep=$r mb_per_s=$(fio_bw r read)"                         # fio invalidates the cache first
    emit disk-read-pagecache "rep=$r mb_per_s=$(fio_bw r read --invalidate=0)"              # now served from page cache
    rm -f "$SCRATCH/seq.dat"
  done
}

fsync_lat() {
  need fio "fsync test" && need jq "fsync test" || return 0
  log "fsync: 4 KiB sequential writes, fdatasync after each, 15 s"
  for r in $(seq 1 "$REPS"); do
    local j
    j="$(fio --name=fsync --filename="$SCRATCH/fsync.dat" --rw=write --bs=4k --size=256M --ioengine=psync \
          --fdatasync=1 --runtime=15 --time_based --output-format=json 2>/dev/null)"
    emit fsync-4k-fdatasync "rep=$r $(jq -r '.jobs[0] | "records_per_s=\(.write.iops | floor) mb_per_s=\(.write.bw_bytes / 1048576 * 100 | floor / 100) p50_ms=\(.sync.lat_ns.percentile["50.000000"] / 1e6) p99_ms=\(.sync.lat_ns.percentile["99.000000"] / 1e6) p999_ms=\(.sync.lat_ns.percentile["99.900000"] / 1e6) avg_ms=\(.sync.lat_ns.mean / 1e6 * 1000 | floor / 1000)"' <<<"$j")"
    rm -f "$SCRATCH/fsync.dat"
  done
}

mem() {
  log "memory copy bandwidth (single thread, 256 MiB buffers)"
  if command -v gcc >/dev/null 2>&1; then
    cat > "$SCRATCH/memcpy.c" <<'C'
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
int main(void) {
  size_t n = 256UL << 20; int iters = 20;
  char *a = malloc(n), *b = malloc(n);
  memset(a, 1, n); memset(b, 2, n);
  for (int i = 0; i < 3; i++) memcpy(b, a, n);
  struct timespec t0, t1; clock_gettime(CLOCK_MONOTONIC, &t0);
  for (int i = 0; i < iters; i++) { memcpy(b, a, n); memcpy(a, b, n); }
  clock_gettime(CLOCK_MONOTONIC, &t1);
  double s = (t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9;
  printf("%.0f\n", 2.0 * iters * n / s / 1048576.0);
  return a[12345] + b[54321] == 0;
}
C
    gcc -O2 -o "$SCRATCH/memcpy" "$SCRATCH/memcpy.c"
    for r in $(seq 1 "$REPS"); do emit mem-copy-c-memcpy "rep=$r mb_per_s=$("$SCRATCH/memcpy")"; done
  fi
  ensure_jars
  for r in $(seq 1 "$REPS"); do
    local l; l="$("$JAVA" -Xms1200m -Xmx1200m -XX:MaxDirectMemorySize=1g -cp "$CP" io.brook.bench.harness.MemCopy 256 20)"
    emit mem-copy-java-arraycopy "rep=$r mb_per_s=$(awk '{ for (i=1;i<=NF;i++) if ($i ~ /^heap/) { split($i, a, "="); printf "%.0f", a[2] * 1024 } }' <<<"$l")"
    emit mem-copy-java-directbuffer "rep=$r mb_per_s=$(awk '{ for (i=1;i<=NF;i++) if ($i ~ /^direct/) { split($i, a, "="); printf "%.0f", a[2] * 1024 } }' <<<"$l")"
  done
  if command -v sysbench >/dev/null 2>&1; then
    for r in $(seq 1 "$REPS"); do
      for op in write read; do
        emit "mem-sysbench-$op" "rep=$r mb_per_s=$(sysbench memory --threads=1 --memory-block-size=1M --memory-total-size=20G \
            --memory-oper=$op run 2>/dev/null | sed -n 's/.*transferred (\([0-9.]*\) MiB\/sec).*/\1/p')"
      done
    done
  fi
}

net() {
  need iperf3 "loopback TCP test" && need jq "loopback TCP test" || return 0
  log "loopback TCP: iperf3, 1 stream, 10 s"
  local port="${IPERF_PORT:-15201}"
  for r in $(seq 1 "$REPS"); do
    iperf3 -s -B 127.0.0.1 -p "$port" -1 > /dev/null 2>&1 &
    IPERF_PID=$!
    sleep 1
    local j; j="$(iperf3 -c 127.0.0.1 -p "$port" -t 10 -J 2>/dev/null)"
    emit loopback-tcp-iperf3 "rep=$r $(jq -r '.end.sum_received.bits_per_second as $b | "mb_per_s=\($b / 8 / 1048576 | floor) gbit_s=\($b / 1e9 * 100 | floor / 100)"' <<<"$j")"
    wait "$IPERF_PID" 2>/dev/null || true
    IPERF_PID=""
  done
}

for t in $TESTS; do
  case "$t" in disk) disk ;; fsync) fsync_lat ;; mem) mem ;; net) net ;; *) log "unknown test $t" ;; esac
done
echo
METRICS="mb_per_s records_per_s p50_ms p99_ms p999_ms" "$BENCH_DIR/summarize.sh" <(grep "run=$RUN_ID " "$OUT")
