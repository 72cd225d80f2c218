// MemberHandle is one consumer-group member of the java driver (see
// KchaosClient and workloads/java_group.go): a KafkaConsumer subscribed
// with a ConsumerRebalanceListener, under the classic or the consumer
// (KIP-848) protocol as its group.protocol says.
//
// The listener's callbacks run inside poll() (or close()), on the
// member's thread, and the Go workload must see a revoke before the
// client gives the partitions up, so that it can commit them first. So a
// callback writes an event line ({"id":0,"event":"rebalance","handle",
// "cb","kind","partitions","member_id","generation"}) and then serves the
// member's commits itself until the Go side answers "rebalance-done" for
// it; a poll or a leave that comes meanwhile waits for the callback to
// end. Every answer carries the member id and generation the client is in.
import java.time.Duration;
import java.util.*;
import java.util.concurrent.*;

import org.apache.kafka.clients.consumer.*;
import org.apache.kafka.common.TopicPartition;

final class MemberHandle implements ConsumerRebalanceListener {
    private final int h;
    private final KafkaConsumer<byte[], byte[]> consumer;
    private final BlockingQueue<Object[]> queue = new LinkedBlockingQueue<>();
    private final Deque<Object[]> deferred = new ArrayDeque<>();
    private final Thread thread;
    private long callbacks;
    private boolean closed;

    MemberHandle(int h, Properties props, String topic) {
        this.h = h;
        this.consumer = new KafkaConsumer<>(props);
        this.thread = new Thread(() -> loop(topic), "kchaos-member-" + h);
        thread.setDaemon(true);
        thread.start();
    }

    /** Queues a request for the member's thread. */
    void submit(long id, String op, Map<String, Object> req) {
        queue.add(new Object[] {id, op, req});
    }

    /** Abandons the member: its thread stops; the JVM's exit drops its connections. */
    void abandon() {
        thread.interrupt();
    }

    private void loop(String topic) {
        consumer.subscribe(Collections.singletonList(topic), this);
        try {
            while (!closed) {
                Object[] r = deferred.isEmpty() ? queue.take() : deferred.poll();
                serve(r);
            }
        } catch (InterruptedException e) {
            // abandoned
        }
    }

    @SuppressWarnings("unchecked")
    private void serve(Object[] r) {
        long id = (Long) r[0];
        String op = (String) r[1];
        Map<String, Object> req = (Map<String, Object>) r[2];
        KchaosClient.respond(id, () -> run(op, req));
    }

    private String run(String op, Map<String, Object> req) {
        switch (op) {
            case "poll":
                return ConsumerHandle.poll(consumer, Duration.ofMillis(Json.num(req.get("timeout_ms")))) + "," + meta();
            case "commit": {
                Map<TopicPartition, OffsetAndMetadata> offs = new HashMap<>();
                String topic = (String) req.get("topic");
                for (Map.Entry<?, ?> e : ((Map<?, ?>) req.get("offsets")).entrySet()) {
                    offs.put(new TopicPartition(topic, Integer.parseInt((String) e.getKey())), new OffsetAndMetadata(Json.num(e.getValue())));
                }
                String m = meta(); // the generation the commit is sent in
                consumer.commitSync(offs, Duration.ofMillis(Json.num(req.get("timeout_ms"))));
                return "\"ok\":true," + m;
            }
            case "leave":
                // close() revokes through the listener, then leaves.
                closed = true;
                consumer.close(Duration.ofMillis(Json.num(req.get("timeout_ms"))));
                return "\"ok\":true";
            case "rebalance-done":
                return "\"ok\":true"; // a callback already over: nothing waits
        }
        throw new IllegalArgumentException("unknown op " + op);
    }

    private String meta() {
        ConsumerGroupMetadata g = consumer.groupMetadata();
        return "\"member_id\":" + Json.quote(g.memberId()) + ",\"generation\":" + g.generationId();
    }

    @Override
    public void onPartitionsRevoked(Collection<TopicPartition> parts) {
        rebalanced("revoked", parts);
    }

    @Override
    public void onPartitionsAssigned(Collection<TopicPartition> parts) {
        rebalanced("assigned", parts);
    }

    @Override
    public void onPartitionsLost(Collection<TopicPartition> parts) {
        rebalanced("lost", parts);
    }

    /**
     * Tells the Go side and serves its commits until it is done with the
     * callback. An empty change (the client calls onPartitionsAssigned
     * after every rebalance) is none.
     */
    private void rebalanced(String kind, Collection<TopicPartition> parts) {
        if (parts.isEmpty()) return;
        long cb = ++callbacks;
        StringBuilder ps = new StringBuilder();
        for (TopicPartition tp : parts) KchaosClient.sep(ps).append(tp.partition());
        KchaosClient.write("{\"id\":0,\"event\":\"rebalance\",\"handle\":" + h + ",\"cb\":" + cb + ",\"kind\":\"" + kind
                + "\",\"partitions\":[" + ps + "]," + meta() + "}");
        try {
            while (true) {
                Object[] r = queue.take();
                String op = (String) r[1];
                @SuppressWarnings("unchecked")
                Map<String, Object> req = (Map<String, Object>) r[2];
                if (op.equals("rebalance-done") && req.get("cb") != null && Json.num(req.get("cb")) == cb) {
                    KchaosClient.write("{\"id\":" + r[0] + ",\"ok\":true}");
                    return;
                }
                if (op.equals("commit") || op.equals("rebalance-done")) serve(r);
                else deferred.add(r);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
