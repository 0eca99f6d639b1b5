#!/usr/bin/env bash
# Stop the Apache Kafka broker started by start-kafka.sh (by the PID it recorded) and delete its data dir.
#   ./stop-kafka.sh [PORT]     (default 19092)   env: KEEP_DATA=1 keeps the data dir
set -uo pipefail
PORT="${1:-19092}"
DATA="${KAFKA_DATA_DIR:-${TMPDIR:-/tmp}/bench-kafka-$PORT}"
if [ ! -f "$DATA/kafka.pid" ]; then echo "no broker recorded for port $PORT ($DATA/kafka.pid missing)" >&2; exit 0; fi
PID="$(cat "$DATA/kafka.pid")"
if kill -0 "$PID" 2>/dev/null; then
  kill -TERM "$PID"
  for _ in $(seq 1 60); do kill -0 "$PID" 2>/dev/null || break; sleep 1; done
  if kill -0 "$PID" 2>/dev/null; then echo "pid $PID did not stop in 60 s; sending SIGKILL" >&2; kill -KILL "$PID"; fi
  echo "stopped broker pid $PID (port $PORT)"
else
  echo "broker pid $PID (port $PORT) was not running"
fi
rm -f "$DATA/kafka.pid"
if [ "${KEEP_DATA:-0}" != "1" ]; then rm -rf "$DATA"; fi
