// ConsumerHandle is one assigned KafkaConsumer of the java driver (see
// KchaosClient), and the poll every consumer handle shares.
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.*;
import java.util.concurrent.*;

import org.apache.kafka.clients.consumer.*;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.*;

/** One KafkaConsumer and the one thread that may touch it. */
final class ConsumerHandle {
    final KafkaConsumer<byte[], byte[]> consumer;
    final ExecutorService thread;
    String topic;

    ConsumerHandle(int h, KafkaConsumer<byte[], byte[]> consumer) {
        this.consumer = consumer;
        this.thread = Executors.newSingleThreadExecutor(KchaosClient.daemon("kchaos-consumer-" + h));
    }

    String run(String op, Map<String, Object> req) {
        switch (op) {
            case "offsets": {
                String t = (String) req.get("topic");
                List<TopicPartition> tps = new ArrayList<>();
                for (Object p : (List<?>) req.get("partitions")) tps.add(new TopicPartition(t, (int) Json.num(p)));
                Duration d = Duration.ofMillis(Json.num(req.get("timeout_ms")));
                // endOffsets is the last stable offset at read_committed,
                // the high watermark otherwise.
                Map<TopicPartition, Long> got = "latest".equals(req.get("rule"))
                        ? consumer.endOffsets(tps, d) : consumer.beginningOffsets(tps, d);
                StringBuilder sb = new StringBuilder("\"offsets\":{");
                String sep = "";
                for (Map.Entry<TopicPartition, Long> e : got.entrySet()) {
                    if (e.getValue() == null) continue;
                    sb.append(sep).append('"').append(e.getKey().partition()).append("\":").append(e.getValue());
                    sep = ",";
                }
                return sb.append('}').toString();
            }
            case "assign": {
                topic = (String) req.get("topic");
                Map<?, ?> offs = (Map<?, ?>) req.get("offsets");
                List<TopicPartition> tps = new ArrayList<>();
                for (Object p : offs.keySet()) tps.add(new TopicPartition(topic, Integer.parseInt((String) p)));
                consumer.assign(tps);
                for (TopicPartition tp : tps) consumer.seek(tp, Json.num(offs.get(String.valueOf(tp.partition()))));
                return "\"ok\":true";
            }
            case "poll":
                return poll(consumer, Duration.ofMillis(Json.num(req.get("timeout_ms"))));
        }
        throw new IllegalArgumentException("unknown op " + op);
    }

    /**
     * One poll. Offset errors are per partition, as the Go consumer
     * loop answers them: OFFSET_OUT_OF_RANGE is reset by the workload's
     * rule; a truncation the client found through leader epochs
     * (KIP-320, LogTruncationException) is repositioned here to the
     * divergence point and reported as a reset, as franz-go does.
     */
    static String poll(KafkaConsumer<byte[], byte[]> consumer, Duration timeout) {
        StringBuilder sb = new StringBuilder();
        ConsumerRecords<byte[], byte[]> recs = ConsumerRecords.empty();
        StringBuilder errs = new StringBuilder();
        StringBuilder resets = new StringBuilder();
        try {
            recs = consumer.poll(timeout);
        } catch (LogTruncationException e) {
            for (Map.Entry<TopicPartition, OffsetAndMetadata> d : e.divergentOffsets().entrySet()) {
                consumer.seek(d.getKey(), d.getValue().offset());
                KchaosClient.sep(resets).append('"').append(d.getKey().partition()).append("\":").append(d.getValue().offset());
            }
        } catch (org.apache.kafka.clients.consumer.InvalidOffsetException e) {
            for (TopicPartition tp : e.partitions()) {
                KchaosClient.sep(errs).append("{\"partition\":").append(tp.partition()).append(",\"error\":")
                        .append(KchaosClient.error(e, "OFFSET_OUT_OF_RANGE")).append('}');
            }
        } catch (WakeupException e) {
            throw new IllegalStateException("consumer closed", e);
        }
        sb.append("\"records\":[");
        String sep = "";
        for (ConsumerRecord<byte[], byte[]> r : recs) {
            record(sb.append(sep), r);
            sep = ",";
        }
        sb.append("],\"errors\":[").append(errs).append("],\"resets\":{").append(resets).append("},\"next\":{");
        // Positions after the poll: transaction markers take offsets
        // that no record shows.
        sep = "";
        for (TopicPartition tp : consumer.assignment()) {
            try {
                long pos = consumer.position(tp, Duration.ZERO);
                sb.append(sep).append('"').append(tp.partition()).append("\":").append(pos);
                sep = ",";
            } catch (RuntimeException e) {
                // no position (being reset): the workload repositions it
            }
        }
        return sb.append('}').toString();
    }

    /** One record as the protocol's {p,o,v,e}. */
    static StringBuilder record(StringBuilder sb, ConsumerRecord<byte[], byte[]> r) {
        return sb.append("{\"p\":").append(r.partition()).append(",\"o\":").append(r.offset())
                .append(",\"v\":").append(Json.quote(r.value() == null ? "" : new String(r.value(), StandardCharsets.UTF_8)))
                .append(",\"e\":").append(r.leaderEpoch().orElse(-1)).append('}');
    }
}
