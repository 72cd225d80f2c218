#!/bin/sh
# kchaos-stop [SECONDS]: stop Kafka cleanly: SIGTERM, then SIGKILL after SECONDS (default 30).
t=${1:-30}
pkill -TERM -f kafka.Kafka || exit 0
i=0
while pgrep -f kafka.Kafka >/dev/null 2>&1; do
  i=$((i+1)); [ $i -ge $((t*10)) ] && { pkill -KILL -f kafka.Kafka; break; }
  sleep 0.1
done
exit 0
