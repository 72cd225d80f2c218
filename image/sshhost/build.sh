#!/usr/bin/env bash
# sshhost/build.sh KAFKA_VERSION: build kchaos/sshhost:$KAFKA_VERSION (the SSH
# backend's test host: kchaos/kafka:$KAFKA_VERSION plus openssh-server), only
# when missing or from another revision of image/sshhost. openssh-server comes
# from the machine's own Debian mirror (image/mirror.sh).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
version=${1:?usage: build.sh KAFKA_VERSION}
version=${version#local:}   # a local build: its image's tag
tag="kchaos/sshhost:${version}"
"$here/../build.sh" "$version" >/dev/null
rev=$(cat "$here"/Dockerfile "$here"/*.sh | sha256sum | cut -c1-16)
have=$(docker image inspect "$tag" --format '{{ index .Config.Labels "org.kchaos.image.rev" }}' 2>/dev/null || true)
if [ "${FORCE:-0}" != 1 ] && [ "$have" = "$rev" ]; then
  echo "image: $tag already built"; exit 0
fi
# shellcheck source=../mirror.sh
. "$here/../mirror.sh"
mirror=$(debian_mirror) || exit 1
start=$(date +%s)
docker build -q --build-arg KAFKA_IMAGE="kchaos/kafka:$version" --build-arg DEBIAN_MIRROR="$mirror" \
  --label org.kchaos.image=sshhost --label org.kchaos.image.rev="$rev" -t "$tag" "$here" >/dev/null
echo "image: built $tag in $(( $(date +%s) - start )) s"
