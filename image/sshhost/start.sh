#!/bin/sh
# kchaos-start: start Kafka as a plain background process, as a service
# manager would: format the log dir once, then kafka.Kafka, its output in
# /var/log/kafka/server.log. Settings come from /etc/kafka/kchaos.env
# (KCHAOS_CLUSTER_ID, KCHAOS_FORMAT_ARGS, KAFKA_HEAP_OPTS), written by the
# test that made the host. A no-op when Kafka already runs.
set -e
[ -f /etc/kafka/kchaos.env ] && . /etc/kafka/kchaos.env
export KCHAOS_CLUSTER_ID KCHAOS_FORMAT_ARGS KAFKA_HEAP_OPTS
if pgrep -f kafka.Kafka >/dev/null 2>&1; then exit 0; fi
mkdir -p /var/log/kafka
nohup setsid /opt/kafka/bin/kchaos-entrypoint >>/var/log/kafka/server.log 2>&1 </dev/null &
exit 0
