#!/usr/bin/env bash
# Brook against Brook: a baseline build (A) and this tree (B), both single-node on loopback with the
# same JVM heap and GC flags, runs interleaved A,B,A,B,... with the benchmark harness (scripts/bench),
# to measure what a change does to Brook alone.
#   BASE_JAR=../base/brook-server/target/brook.jar scripts/bench-brook-ab.sh
#   env: ROUNDS (5), WORKLOADS (produce-acks1-1k produce-acksall-1k), RECORDS (1000000), BENCH;
#        MAX_OTHER_CPU=0.25 keeps only quiet samples.
# A baseline jar: git worktree add --detach ../base REV && cd ../base &&
#   mvn -o -B -q -DskipTests package -pl brook-server -am
# Prints the harness report (medians, B/A ratios; A = base, B = this tree).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BENCH="${BENCH:-$ROOT/scripts/bench}"
BASE_JAR="${BASE_JAR:?set BASE_JAR to the baseline brook.jar}"
BASE_PORT="${BASE_PORT:-47092}"
BROOK_PORT="${BROOK_PORT:-49092}"
export ROUNDS="${ROUNDS:-5}"
export RECORDS="${RECORDS:-1000000}"
export WORKLOADS="${WORKLOADS:-produce-acks1-1k produce-acksall-1k}"
export LABEL_A=base LABEL_B=brook

source "$ROOT/scripts/lib/bench-brokers.sh"
[ -f "$ROOT/brook-server/target/brook.jar" ] || (cd "$ROOT" && mvn -B -q -DskipTests package -pl brook-server -am)
start_brook "$BASE_JAR" "$BASE_PORT"
BASE_PID=$STARTED_PID
trap 'kill $BASE_PID 2>/dev/null || true; kill ${BROOK_PID:-} 2>/dev/null || true' EXIT
start_brook "$ROOT/brook-server/target/brook.jar" "$BROOK_PORT"
BROOK_PID=$STARTED_PID
BROKER_PID="" "$BENCH/compare.sh" "127.0.0.1:$BASE_PORT" "127.0.0.1:$BROOK_PORT"
