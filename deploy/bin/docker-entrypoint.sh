#!/bin/bash
# The entrypoint of apache's RocketMQ image, for an image that holds only the NameServer:
# `nameserver` as the first argument or NODE_ROLE=nameserver starts it through mqnamesrv
# with the remaining arguments (CMD `dummy` with NODE_ROLE is dropped, as apache's drops it);
# any other command runs as given (`sh mqnamesrv`, a shell). A broker or controller is
# refused: run those from apache's image.
set -e
here="$(dirname "$0")"

if [[ "$1" == "nameserver" || "${NODE_ROLE}" == "nameserver" ]]; then
  shift
  exec "$here/mqnamesrv" "$@"
elif [[ "$1" == "broker" || "${NODE_ROLE}" == "broker" || "$1" == "controller" || "${NODE_ROLE}" == "controller" ]]; then
  role="${NODE_ROLE:-$1}"
  [[ "$1" == "broker" || "$1" == "controller" ]] && role="$1"
  echo "docker-entrypoint.sh: this image runs the RocketMQ NameServer only, not a $role;" \
    "start the $role from apache/rocketmq's image and point its namesrvAddr here" >&2
  exit 64
else
  exec "$@"
fi
