// ShareHandle is one share-group member of the java driver (see
// KchaosClient and workloads/java_share.go): a KafkaShareConsumer
// (KIP-932) subscribed to the workload's topic, in a JVM of its own so
// that a kill is a crash.
//
// It is compiled only for kafka-clients 4.1 and later (java_build.go):
// KchaosClient makes it by name, so that the other handles build against
// every client. Requests run in order on its one thread:
//   - share-poll: poll(timeout); every record with its delivery count.
//     The records are kept for the next share-ack;
//   - share-ack: in explicit mode acknowledge(record, type) for each kept
//     record with the status given, in order (RENEW by name: 4.2+), then
//     commitSync(timeout); in implicit mode commitSync alone, which
//     accepts every record the last poll delivered. The answer is
//     commitSync's result per partition: null (applied) or the error;
//   - share-leave: close(timeout), which releases what it holds.
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.*;
import java.util.concurrent.*;

import org.apache.kafka.clients.consumer.*;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicIdPartition;

final class ShareHandle implements KchaosClient.Served {
    private final KafkaShareConsumer<byte[], byte[]> consumer;
    private final ExecutorService thread;
    private final boolean implicit;
    private final List<ConsumerRecord<byte[], byte[]>> last = new ArrayList<>();

    public ShareHandle(int h, Properties props, String topic) {
        this.implicit = "implicit".equals(props.getProperty("share.acknowledgement.mode"));
        this.consumer = new KafkaShareConsumer<>(props);
        this.consumer.subscribe(Collections.singletonList(topic));
        this.thread = Executors.newSingleThreadExecutor(KchaosClient.daemon("kchaos-share-" + h));
    }

    @Override
    public void submit(long id, String op, Map<String, Object> req) {
        thread.execute(() -> KchaosClient.respond(id, () -> run(op, req)));
    }

    /** Abandons the member: the JVM's exit drops its connections, as a crash. */
    @Override
    public void abandon() {
        thread.shutdownNow();
    }

    private String run(String op, Map<String, Object> req) {
        Duration d = Duration.ofMillis(Json.num(req.get("timeout_ms")));
        switch (op) {
            case "share-poll":
                return poll(d);
            case "share-ack":
                return ack(req, d);
            case "share-leave":
                consumer.close(d);
                return "\"ok\":true";
        }
        throw new IllegalArgumentException("unknown op " + op);
    }

    private String poll(Duration d) {
        ConsumerRecords<byte[], byte[]> recs = consumer.poll(d);
        last.clear();
        StringBuilder sb = new StringBuilder("\"records\":[");
        String sep = "";
        for (ConsumerRecord<byte[], byte[]> r : recs) {
            last.add(r);
            sb.append(sep).append("{\"p\":").append(r.partition()).append(",\"o\":").append(r.offset())
                    .append(",\"v\":").append(Json.quote(r.value() == null ? "" : new String(r.value(), StandardCharsets.UTF_8)))
                    .append(",\"e\":").append(r.leaderEpoch().orElse(-1))
                    .append(",\"c\":").append(r.deliveryCount().map(Short::intValue).orElse(0)).append('}');
            sep = ",";
        }
        return sb.append(']').toString();
    }

    private String ack(Map<String, Object> req, Duration d) {
        if (!implicit) {
            List<?> sts = (List<?>) req.get("statuses");
            if (sts.size() != last.size()) {
                throw new IllegalArgumentException(sts.size() + " statuses for " + last.size() + " records");
            }
            for (int i = 0; i < sts.size(); i++) {
                consumer.acknowledge(last.get(i), AcknowledgeType.valueOf(((String) sts.get(i)).toUpperCase(Locale.ROOT)));
            }
        }
        Map<TopicIdPartition, Optional<KafkaException>> res = consumer.commitSync(d);
        StringBuilder sb = new StringBuilder("\"results\":{");
        String sep = "";
        for (Map.Entry<TopicIdPartition, Optional<KafkaException>> e : res.entrySet()) {
            sb.append(sep).append("\"").append(e.getKey().partition()).append("\":")
                    .append(e.getValue().isPresent() ? KchaosClient.error(e.getValue().get()) : "null");
            sep = ",";
        }
        return sb.append('}').toString();
    }
}
