#!/usr/bin/env bash
# build.sh KAFKA_VERSION: build kchaos/kafka:$KAFKA_VERSION offline, only when missing.
# KAFKA_VERSION is a release (4.3.2: any that Maven Central serves, listed or
# not in cluster.Releases) or a local build local:NAME (kchaos/kafka:NAME from
# org.apache.kafka:kafka_2.13:NAME, e.g. 4.5.0-SNAPSHOT that Kafka's
# `./gradlew publishToMavenLocal` put in the local Maven repository).
#   1. a base image (Debian bookworm root filesystem made with debootstrap, with
#      openjdk-17-jre-headless, iproute2, iptables, procps), imported once and
#      cached as kchaos/base:bookworm-jre17, from the machine's own Debian
#      mirror (mirror.sh: DEBIAN_MIRROR or the apt sources); BASE_IMAGE=...
#      uses another image;
#   2. the Kafka jars and a log4j2 backend resolved by Maven (image/pom.xml);
#   3. kchaos's RemoteStorageManager (image/rsm, tiered storage) compiled
#      with the host's javac against those jars;
#   4. the Kafka image: base + jars + entrypoint.
# FORCE=1 rebuilds the Kafka image even when it exists; an image whose
# org.kchaos.image.rev label differs from the hash of image/ is rebuilt.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
version=${1:?usage: build.sh KAFKA_VERSION}
version=${version#local:}
tag="kchaos/kafka:${version}"
base=${BASE_IMAGE:-kchaos/base:bookworm-jre17}

# The image's revision is a hash of what goes into it besides the jars: an
# image built from an older entrypoint is rebuilt, never silently reused.
rsm_src="$here/rsm/org/kchaos/rsm/DirRemoteStorageManager.java"
rev=$(cat "$here/entrypoint.sh" "$here/cds.sh" "$here/log4j2.xml" "$here/Dockerfile" "$here/pom.xml" "$rsm_src" | sha256sum | cut -c1-16)
have=$(docker image inspect "$tag" --format '{{ index .Config.Labels "org.kchaos.image.rev" }}' 2>/dev/null || true)
if [ "${FORCE:-0}" != 1 ] && [ "$have" = "$rev" ]; then
  echo "image: $tag already built"; exit 0
fi
[ -z "$have" ] || echo "image: $tag is from another revision of image/ ($have), rebuilding" >&2
start=$(date +%s)
if [ "$base" = kchaos/base:bookworm-jre17 ] && ! docker image inspect "$base" >/dev/null 2>&1; then
  command -v debootstrap >/dev/null 2>&1 || {
    echo "image: installing debootstrap" >&2
    DEBIAN_FRONTEND=noninteractive apt-get update -qq >/dev/null
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq debootstrap >/dev/null
  }
  # The machine's own Debian mirror (or DEBIAN_MIRROR); kchaos names none.
  # shellcheck source=mirror.sh
  . "$here/mirror.sh"
  mirror=$(debian_mirror) || exit 1
  root=$(mktemp -d /var/tmp/kchaos-rootfs.XXXXXX)
  trap 'rm -rf "$root"' EXIT
  echo "image: debootstrap bookworm with a JRE from $mirror (about a minute)" >&2
  debootstrap --variant=minbase \
    --include=openjdk-17-jre-headless,iproute2,iptables,procps,ca-certificates-java \
    bookworm "$root" "$mirror" >/var/tmp/kchaos-debootstrap.log 2>&1 || {
      echo "image: debootstrap failed, see /var/tmp/kchaos-debootstrap.log" >&2; exit 1; }
  # keep the image small: no apt caches, docs or man pages
  rm -rf "$root"/var/cache/apt/archives/*.deb "$root"/var/lib/apt/lists/* \
         "$root"/usr/share/doc "$root"/usr/share/man
  tar -C "$root" -c . | docker import \
    -c 'ENV LANG=C.UTF-8 PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
    - "$base" >/dev/null
  echo "image: imported base $base" >&2
fi
ctx=$(mktemp -d /var/tmp/kchaos-image.XXXXXX)
trap 'rm -rf "$ctx" ${root:+"$root"}' EXIT
echo "image: resolving org.apache.kafka:kafka_2.13:$version through Maven (the local repository, then Maven Central)" >&2
mvn -q -B -f "$here/pom.xml" -Dkafka.version="$version" \
  -DoutputDirectory="$ctx/lib" dependency:copy-dependencies \
  -DincludeScope=runtime -DexcludeArtifactIds=slf4j-reload4j,reload4j,slf4j-log4j12,log4j >/dev/null || {
    echo "image: Maven could not resolve Kafka $version (is it on Maven Central? kchaos versions --available lists what is)" >&2; exit 1; }
# The remote tier's RemoteStorageManager (cluster.tiered), built against
# this release's own plugin interface (kafka-storage-api) in lib/.
command -v javac >/dev/null 2>&1 || { echo "image: javac (a JDK 17+) is needed to build kchaos's RemoteStorageManager" >&2; exit 1; }
mkdir -p "$ctx/rsm"
javac -nowarn --release 17 -d "$ctx/rsm" -cp "$ctx/lib/*" "$rsm_src" || {
  echo "image: kchaos's RemoteStorageManager does not compile against Kafka $version" >&2; exit 1; }
jar cf "$ctx/lib/kchaos-rsm.jar" -C "$ctx/rsm" .
rm -rf "$ctx/rsm"
cp "$here/entrypoint.sh" "$here/cds.sh" "$here/log4j2.xml" "$here/Dockerfile" "$ctx/"
docker build -q --build-arg BASE="$base" --label org.kchaos.image=kafka --label org.kchaos.image.rev="$rev" -t "$tag" "$ctx" >/dev/null
echo "image: built $tag in $(( $(date +%s) - start )) s"
