// TxnHandle is one transactional client of the java driver (see
// KchaosClient and workloads/java_txn.go): a KafkaProducer with a
// transactional.id, and for the transaction's polls a read_committed
// KafkaConsumer, as Jepsen's model of a transaction by one process.
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.time.Duration;
import java.util.*;
import java.util.concurrent.*;

import org.apache.kafka.clients.consumer.*;
import org.apache.kafka.clients.producer.*;
import org.apache.kafka.common.TopicPartition;

final class TxnHandle {
    final KafkaProducer<byte[], byte[]> producer;
    private final KafkaConsumer<byte[], byte[]> consumer;
    /** The one thread that runs the handle's requests, in order. */
    final ExecutorService thread;
    /** Next poll position per partition, once known. */
    private final Map<Integer, Long> pos = new HashMap<>();
    private boolean initialized;

    TxnHandle(int h, Properties producerProps, Properties consumerProps) {
        producer = new KafkaProducer<>(producerProps);
        consumer = new KafkaConsumer<>(consumerProps);
        thread = Executors.newSingleThreadExecutor(KchaosClient.daemon("kchaos-txn-" + h));
    }

    String run(String op, Map<String, Object> req) throws Exception {
        switch (op) {
            case "txn-id":
                return id(Json.num(req.get("timeout_ms")), Boolean.TRUE.equals(req.get("begin")));
            case "txn-poll":
                return poll(req);
            case "txn-end":
                return end(Boolean.TRUE.equals(req.get("commit")));
        }
        throw new IllegalArgumentException("unknown op " + op);
    }

    /**
     * initTransactions the first time (InitProducerId: fences an older
     * producer with the same transactional.id and waits for the
     * coordinator to abort its open transaction), retried on its
     * TimeoutException (which the client allows) until timeoutMs; then
     * beginTransaction if asked; then the producer id and epoch.
     */
    private String id(long timeoutMs, boolean begin) {
        long deadline = System.currentTimeMillis() + timeoutMs;
        while (!initialized) {
            try {
                producer.initTransactions();
                initialized = true;
            } catch (org.apache.kafka.common.errors.TimeoutException e) {
                if (System.currentTimeMillis() >= deadline) throw e;
            }
        }
        if (begin) producer.beginTransaction();
        long[] pe = producerIdAndEpoch(producer);
        return "\"producer_id\":" + pe[0] + ",\"epoch\":" + pe[1];
    }

    /**
     * The producer id and epoch the client holds now. KafkaProducer does
     * not expose them; they are read by reflection from its
     * TransactionManager's producerIdAndEpoch field (a ProducerIdAndEpoch
     * with public final producerId and epoch, in every kafka-clients from
     * 3.9 to 4.4; the class moved to common.utils.internals in 4.x, so it
     * is named by no import). Where that fails (a client that changed
     * them), both are -1: unknown, never guessed.
     */
    static long[] producerIdAndEpoch(KafkaProducer<?, ?> p) {
        try {
            Object pe = field(field(p, KafkaProducer.class, "transactionManager"), null, "producerIdAndEpoch");
            return new long[] {pe.getClass().getField("producerId").getLong(pe), pe.getClass().getField("epoch").getShort(pe)};
        } catch (ReflectiveOperationException | RuntimeException e) {
            return new long[] {-1, -1};
        }
    }

    private static Object field(Object o, Class<?> c, String name) throws ReflectiveOperationException {
        Field f = (c != null ? c : o.getClass()).getDeclaredField(name);
        f.setAccessible(true);
        return f.get(o);
    }

    /**
     * Whether the producer's TransactionManager is in an error state
     * (abortable or fatal), read by reflection as producerIdAndEpoch; null
     * when it cannot be read. In an error state commitTransaction throws
     * before it sends EndTxn (TransactionManager.maybeFailWithError in
     * beginCommit), so that commit was never attempted.
     */
    private static Boolean hasError(KafkaProducer<?, ?> p) {
        try {
            Object tm = field(p, KafkaProducer.class, "transactionManager");
            Method m = tm.getClass().getDeclaredMethod("hasError");
            m.setAccessible(true);
            return (Boolean) m.invoke(tm);
        } catch (ReflectiveOperationException | RuntimeException e) {
            return null;
        }
    }

    /**
     * commitTransaction or abortTransaction. A commit refused in an error
     * state is marked NotAttempted; any other commit error (a
     * TimeoutException after max.block.ms above all) leaves the outcome
     * unknown, which the Go side records as info.
     */
    private String end(boolean commit) {
        Boolean inError = commit ? hasError(producer) : null;
        try {
            if (commit) producer.commitTransaction();
            else producer.abortTransaction();
        } catch (RuntimeException e) {
            if (Boolean.TRUE.equals(inError)) throw new KchaosClient.NotAttempted(e);
            throw e;
        }
        return "\"ok\":true";
    }

    /**
     * Reads the partitions, at read_committed, from this client's last
     * position on each (the last stable offset the first time), until
     * records come or the timeout; then unassigns them, so that nothing
     * is fetched between transactions. The positions after the poll step
     * over transaction markers. OFFSET_OUT_OF_RANGE (auto.offset.reset
     * none) is the poll's error, and those partitions start at the end
     * next time; a truncation found through leader epochs repositions to
     * the divergence point.
     */
    private String poll(Map<String, Object> req) {
        String topic = (String) req.get("topic");
        List<TopicPartition> tps = new ArrayList<>();
        for (Object p : (List<?>) req.get("partitions")) tps.add(new TopicPartition(topic, (int) Json.num(p)));
        long deadline = System.currentTimeMillis() + Json.num(req.get("timeout_ms"));
        consumer.assign(tps);
        StringBuilder sb = new StringBuilder("\"records\":[");
        try {
            for (TopicPartition tp : tps) {
                Long at = pos.get(tp.partition());
                if (at != null) consumer.seek(tp, at);
                else consumer.seekToEnd(Collections.singleton(tp));
            }
            int n = 0;
            while (n == 0) {
                long left = deadline - System.currentTimeMillis();
                if (left <= 0) break;
                ConsumerRecords<byte[], byte[]> recs;
                try {
                    recs = consumer.poll(Duration.ofMillis(left));
                } catch (LogTruncationException e) {
                    for (Map.Entry<TopicPartition, OffsetAndMetadata> d : e.divergentOffsets().entrySet()) {
                        consumer.seek(d.getKey(), d.getValue().offset());
                    }
                    continue;
                } catch (InvalidOffsetException e) {
                    for (TopicPartition tp : e.partitions()) pos.remove(tp.partition());
                    throw e;
                }
                for (ConsumerRecord<byte[], byte[]> r : recs) {
                    ConsumerHandle.record(n++ > 0 ? sb.append(',') : sb, r);
                }
            }
            for (TopicPartition tp : tps) {
                try {
                    pos.put(tp.partition(), consumer.position(tp, Duration.ZERO));
                } catch (RuntimeException e) {
                    // not resolved yet: the next poll starts at the end
                }
            }
        } finally {
            consumer.assign(Collections.emptyList());
        }
        return sb.append(']').toString();
    }

    /** Abandons the client: no EndTxn, nothing flushed. */
    void close() {
        producer.close(Duration.ZERO);
        consumer.wakeup();
        thread.execute(() -> {
            try {
                consumer.close(Duration.ZERO);
            } catch (RuntimeException ignored) {
                // closing: nothing to tell
            }
        });
        thread.shutdown();
    }
}
