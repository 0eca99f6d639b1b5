#!/usr/bin/env bash
# The entry point of Brook's container image (docker/Dockerfile): turns environment variables into a
# properties file, then runs `brook server` on it. Any other command runs the brook CLI instead
# (`docker run IMAGE topic list -b host:9092`). docs/operations.md, "Container image", lists the
# variables:
#   BROOK_NODE_ID                    node.id (default 1)
#   BROOK_PROCESS_ROLES              process.roles (default broker,controller)
#   BROOK_ADVERTISED_HOST            the host clients are told to connect to (default: hostname)
#   BROOK_CONTROLLER_QUORUM_VOTERS   controller.quorum.voters (default: this node alone, when it is a
#                                    controller; required for a broker-only node)
#   BROOK_DATA_DIR                   log.dirs (default /var/lib/brook/data, the image's volume)
#   BROOK_PORT, BROOK_CONTROLLER_PORT, BROOK_ADMIN_PORT   9092, 9093, 9644 (admin: 0 turns it off)
#   BROOK_CFG_<KEY>                  any other setting: BROOK_CFG_LOG_RETENTION_HOURS=24 is
#                                    log.retention.hours=24 (lower case, _ is a dot, __ an
#                                    underscore, ___ a dash); it wins over the values above
#   BROOK_CONFIG_FILE                where the file is written (default $BROOK_HOME/config/server.properties)
set -euo pipefail

BROOK_HOME="${BROOK_HOME:-/opt/brook}"

fail() {
  echo "brook entrypoint: $*" >&2
  exit 2
}

# BROOK_CFG_LOG_RETENTION_HOURS -> log.retention.hours; ___ -> '-', __ -> '_', _ -> '.'.
property_name() {
  local name="${1#BROOK_CFG_}"
  name="$(printf '%s' "$name" | tr '[:upper:]' '[:lower:]')"
  name="${name//___/$'\x01'}"
  name="${name//__/$'\x02'}"
  name="${name//_/.}"
  name="${name//$'\x01'/-}"
  name="${name//$'\x02'/_}"
  printf '%s' "$name"
}

write_properties() {
  local file="$1"
  local node_id="${BROOK_NODE_ID:-1}"
  local roles="${BROOK_PROCESS_ROLES:-broker,controller}"
  local host="${BROOK_ADVERTISED_HOST:-$(hostname)}"
  local port="${BROOK_PORT:-9092}"
  local controller_port="${BROOK_CONTROLLER_PORT:-9093}"
  local admin_port="${BROOK_ADMIN_PORT:-9644}"
  local data_dir="${BROOK_DATA_DIR:-/var/lib/brook/data}"
  [[ "$node_id" =~ ^[0-9]+$ ]] || fail "BROOK_NODE_ID must be a non-negative integer, not '$node_id'"
  local broker=false controller=false role
  IFS=',' read -r -a role_list <<<"$roles"
  for role in "${role_list[@]}"; do
    case "${role// /}" in
      broker) broker=true ;;
      controller) controller=true ;;
      *) fail "BROOK_PROCESS_ROLES takes broker and/or controller, not '$role'" ;;
    esac
  done
  local voters="${BROOK_CONTROLLER_QUORUM_VOTERS:-}"
  if [ -z "$voters" ]; then
    [ "$controller" = true ] || fail "BROOK_CONTROLLER_QUORUM_VOTERS is required for a broker-only node"
    voters="$node_id@localhost:$controller_port"
  fi
  local listeners="" advertised=""
  if [ "$broker" = true ]; then
    listeners="PLAINTEXT://0.0.0.0:$port"
    advertised="PLAINTEXT://$host:$port"
  fi
  if [ "$controller" = true ]; then
    listeners="${listeners:+$listeners,}CONTROLLER://0.0.0.0:$controller_port"
  fi

  # The values derived above, each left out when a BROOK_CFG_ variable sets the same key.
  declare -A settings=()
  local keys=()
  put() {
    if [ -z "${settings[$1]+set}" ]; then
      keys+=("$1")
    fi
    settings[$1]="$2"
  }
  put node.id "$node_id"
  put process.roles "$roles"
  put listeners "$listeners"
  if [ -n "$advertised" ]; then
    put advertised.listeners "$advertised"
  fi
  put controller.listener.names CONTROLLER
  put controller.quorum.voters "$voters"
  put log.dirs "$data_dir"
  if [ "$admin_port" != 0 ]; then
    put brook.admin.listener "http://0.0.0.0:$admin_port"
  fi
  local var
  while IFS= read -r var; do
    put "$(property_name "$var")" "${!var}"
  done < <(compgen -e | grep '^BROOK_CFG_.' | sort || true)

  mkdir -p "$(dirname "$file")"
  {
    echo "# Written by the container's entry point from BROOK_* environment variables."
    local key
    for key in "${keys[@]}"; do
      # Properties syntax: a backslash escapes; keep values as given.
      printf '%s=%s\n' "$key" "${settings[$key]//\\/\\\\}"
    done
  } >"$file"
}

if [ "${1:-server}" = server ]; then
  file="${BROOK_CONFIG_FILE:-$BROOK_HOME/config/server.properties}"
  write_properties "$file"
  exec "$BROOK_HOME/bin/brook" server "$file"
fi
exec "$BROOK_HOME/bin/brook" "$@"
