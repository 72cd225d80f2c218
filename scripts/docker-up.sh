#!/usr/bin/env bash
# docker-up.sh: make sure a Docker engine answers. A no-op where `docker info`
# already works; otherwise (Debian, root) install Debian's docker.io, start
# dockerd in the background and wait until it answers.
set -euo pipefail
if docker info >/dev/null 2>&1; then exit 0; fi
if [ "$(id -u)" != 0 ]; then
  echo "docker-up: no Docker engine answers and we are not root; start one yourself" >&2
  exit 1
fi
if ! command -v dockerd >/dev/null 2>&1; then
  echo "docker-up: installing Debian's docker.io" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq >/dev/null
  apt-get install -y -qq docker.io >/dev/null
fi
if ! pgrep -x dockerd >/dev/null 2>&1; then
  echo "docker-up: starting dockerd (log: /var/log/kchaos-dockerd.log)" >&2
  # setsid: dockerd outlives the shell (and process group) that started it.
  # 3>&- ... 9>&-: it keeps none of the caller's other descriptors, so a
  # lock held around this script (flock F make test) ends with the caller
  # rather than with dockerd.
  setsid nohup dockerd >/var/log/kchaos-dockerd.log 2>&1 < /dev/null 3>&- 4>&- 5>&- 6>&- 7>&- 8>&- 9>&- &
fi
for _ in $(seq 1 60); do
  if docker info >/dev/null 2>&1; then exit 0; fi
  sleep 1
done
echo "docker-up: dockerd did not answer within 60 s; see /var/log/kchaos-dockerd.log" >&2
exit 1
