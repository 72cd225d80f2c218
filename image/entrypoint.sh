#!/bin/sh
# kchaos Kafka entrypoint: format the log dir once (KRaft), then run kafka.Kafka.
# Environment (set by cluster):
#   KCHAOS_CLUSTER_ID   cluster id for StorageTool format
#   KCHAOS_FORMAT_ARGS  extra format args (e.g. --standalone, --feature ...)
#   KAFKA_HEAP_OPTS     JVM heap flags
# The server.properties file is written by the harness at /etc/kafka/server.properties.
set -e
PROPS=/etc/kafka/server.properties
CP="/opt/kafka/lib/*"
# The class-data-sharing archive built with the image (image/cds.sh), when
# there is one: the JVM maps Kafka's classes instead of loading them.
CDS=""
[ -s /opt/kafka/kafka.jsa ] && CDS="-XX:SharedArchiveFile=/opt/kafka/kafka.jsa -Xshare:auto"
JAVA_OPTS="${KAFKA_HEAP_OPTS:--Xms256m -Xmx512m} $CDS -XX:ActiveProcessorCount=2 -XX:+UseG1GC -Djava.awt.headless=true -Dlog4j2.configurationFile=/opt/kafka/config/log4j2.xml ${KAFKA_EXTRA_JAVA_OPTS:-}"
LOGDIR=$(sed -n 's/^log\.dirs=//p' "$PROPS" | cut -d, -f1)
[ -n "$LOGDIR" ] || LOGDIR=$(sed -n 's/^log\.dir=//p' "$PROPS")
META="$LOGDIR/meta.properties"
if [ ! -f "$META" ]; then
  echo "kchaos-entrypoint: formatting $LOGDIR (cluster $KCHAOS_CLUSTER_ID) $KCHAOS_FORMAT_ARGS"
  # shellcheck disable=SC2086
  java $JAVA_OPTS -cp "$CP" kafka.tools.StorageTool format --config="$PROPS" --cluster-id="$KCHAOS_CLUSTER_ID" $KCHAOS_FORMAT_ARGS
fi
# shellcheck disable=SC2086
exec java $JAVA_OPTS -cp "$CP" kafka.Kafka "$PROPS"
