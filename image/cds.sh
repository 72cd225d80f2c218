#!/bin/sh
# kchaos-cds: build a JVM class-data-sharing archive of a Kafka node's
# start, at image build time, so that every node of every run maps the
# classes instead of loading and verifying them (JDK 13+ dynamic archive,
# -XX:ArchiveClassesAtExit). It starts one combined KRaft node on loopback
# in a scratch folder, waits for it to serve, stops it cleanly (the archive
# is written at a clean JVM exit) and removes the folder. A failure leaves
# no archive, and the entrypoint then runs without one.
set -eu
ARCHIVE=/opt/kafka/kafka.jsa
CP="/opt/kafka/lib/*"
d=$(mktemp -d)
trap 'rm -rf "$d"' EXIT
cat > "$d/server.properties" <<PROPS
process.roles=broker,controller
node.id=1
controller.quorum.voters=1@127.0.0.1:19093
listeners=PLAINTEXT://127.0.0.1:19092,CONTROLLER://127.0.0.1:19093
advertised.listeners=PLAINTEXT://127.0.0.1:19092
controller.listener.names=CONTROLLER
listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT
log.dirs=$d/data
offsets.topic.replication.factor=1
transaction.state.log.replication.factor=1
PROPS
OPTS="-Xmx384m -XX:ActiveProcessorCount=2 -XX:+UseG1GC -Djava.awt.headless=true -Dlog4j2.configurationFile=/opt/kafka/config/log4j2.xml"
# shellcheck disable=SC2086
java $OPTS -cp "$CP" kafka.tools.StorageTool format --config="$d/server.properties" --cluster-id=a2NoYW9zLWNkcy1hcmNoaXZl >"$d/format.log" 2>&1 || {
  echo "kchaos-cds: format failed, no archive:"; tail -5 "$d/format.log"; exit 0; }
# shellcheck disable=SC2086
java $OPTS -XX:ArchiveClassesAtExit=$ARCHIVE -cp "$CP" kafka.Kafka "$d/server.properties" >"$d/kafka.log" 2>&1 &
pid=$!
i=0
until grep -q "Kafka Server started\|KafkaRaftServer.*started\|Transitioning from RECOVERY to RUNNING" "$d/kafka.log" 2>/dev/null; do
  i=$((i + 1))
  if [ $i -gt 240 ] || ! kill -0 $pid 2>/dev/null; then
    echo "kchaos-cds: the node did not start, no archive:"; tail -5 "$d/kafka.log"
    kill -9 $pid 2>/dev/null || true; rm -f $ARCHIVE; exit 0
  fi
  sleep 0.25
done
sleep 2
kill -TERM $pid
wait $pid || true
if [ -s $ARCHIVE ]; then
  echo "kchaos-cds: archive $(du -h $ARCHIVE | cut -f1)"
else
  echo "kchaos-cds: no archive written"; tail -5 "$d/kafka.log"
fi
