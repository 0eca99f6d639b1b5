#!/usr/bin/env bash
# A small transactional run on one Brook node that counts retries instead of timing them, so it
# reads the same on a loaded machine: TransactionalLatency (kafka-clients, transaction protocol V2,
# the node's default) sends RATE records/s for SECS s to a topic of PARTITIONS partitions,
# committing every COMMIT_MS, then prints the producer's record-retry-total (record_retries=, the
# retries the producer saw) and the node's AddPartitionsToTxnManager counts: asks the leader
# repeated on CONCURRENT_TRANSACTIONS, and additions handed back to the producer with it.
#
#   scripts/probe-txn-retries.sh   env: RATE (2000), SECS (20), COMMIT_MS (100), PARTITIONS (6),
#                                       JAR (brook-server/target/brook.jar: another build to compare)
#
# Build first: mvn -B -DskipTests verify (brook.jar and brook-tests' test classes).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
RATE="${RATE:-2000}"
SECS="${SECS:-20}"
COMMIT_MS="${COMMIT_MS:-100}"
PARTITIONS="${PARTITIONS:-6}"
PROBE_JAR="${JAR:-}"
BASE_PORT="${BASE_PORT:-19800}"
# shellcheck source=lib/three-nodes.sh
. "$ROOT/scripts/lib/three-nodes.sh"
JAR="${PROBE_JAR:-$JAR}"
VOTERS="1@127.0.0.1:$((BASE_PORT + 11))"
BROKERS="127.0.0.1:$((BASE_PORT + 10))"
ADMIN="http://127.0.0.1:$((BASE_PORT + 19))"

declare -A PIDS
WORK="$(mktemp -d "${TMPDIR:-/tmp}/brook-txn-probe.XXXXXX")"
stop() {
  for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$WORK"
}
trap stop EXIT

write_node_config "$WORK" 1 brook ""
echo "brook.admin.listener=$ADMIN" >>"$WORK/server-1.properties"
launch_node "$WORK" 1 brook "$WORK/node-1.log"
"${TOOL[@]}" await-brokers "$BROKERS" 1 "$(date +%s%3N)" >/dev/null
"${TOOL[@]}" create "$BROKERS" 1 "$PARTITIONS" 1 >/dev/null # topic bench-00000
"$JAVA" -Dlog4j2.configurationFile=log4j2-child.properties -cp "$TEST_CP" \
  io.brook.tests.tools.TransactionalLatency "$BROKERS" bench-00000 transactional \
  "$RATE" "$SECS" "$COMMIT_MS" | tail -1
curl -s "$ADMIN/metrics" | grep -i '^kafka_server_addpartitionstotxnmanager' || echo "(no AddPartitionsToTxnManager counts: a build without them)"
