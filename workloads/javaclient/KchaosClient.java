// KchaosClient is kchaos's driver for Apache Kafka's own Java client
// (workloads/java_*.go): one JVM per workload run, told what to do on
// stdin and answering on stdout, one JSON object a line. It only moves
// records: the Go workload owns the history and its clock.
//
// Requests: {"id":N,"op":OP,"handle":H,...}. Every response carries the
// request's id and either its result or "error": {"class","message",
// "kafka","retriable","timeout"}, where "kafka" is
// Errors.forException(e).name(): the Go side maps that onto kchaos's
// error names and fail/info classes (workloads/java_errors.go).
//
// A KafkaProducer is thread-safe and sends asynchronously: a send's
// response is written by its callback, so a producer's in-flight sends
// are really concurrent. A KafkaConsumer is not: each consumer handle has
// a thread of its own that runs its requests in order.
//
// On EOF of stdin (the kchaos process closed it, or died) the clients are
// closed at once and the JVM exits, so no JVM outlives its kchaos.
import java.io.*;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.*;
import java.util.concurrent.*;
import java.util.concurrent.atomic.AtomicInteger;

import org.apache.kafka.clients.consumer.*;
import org.apache.kafka.clients.producer.*;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.*;
import org.apache.kafka.common.protocol.Errors;

public final class KchaosClient {
    private static final PrintStream OUT = new PrintStream(new FileOutputStream(FileDescriptor.out), false, StandardCharsets.UTF_8);
    private static final AtomicInteger HANDLES = new AtomicInteger();
    private static final Map<Integer, KafkaProducer<byte[], byte[]>> producers = new ConcurrentHashMap<>();
    private static final Map<Integer, ExecutorService> producerThreads = new ConcurrentHashMap<>();
    private static final Map<Integer, ConsumerHandle> consumers = new ConcurrentHashMap<>();

    public static void main(String[] args) throws Exception {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        write("{\"id\":0,\"ready\":true,\"version\":" + Json.quote(clientVersion()) + "}");
        String line;
        while ((line = in.readLine()) != null) {
            if (line.isBlank()) continue;
            Map<String, Object> req;
            try {
                req = Json.object(line);
            } catch (RuntimeException e) {
                write("{\"id\":-1,\"error\":" + error(e) + "}");
                continue;
            }
            long id = Json.num(req.get("id"));
            try {
                dispatch(id, req);
            } catch (Exception e) {
                write("{\"id\":" + id + ",\"error\":" + error(e) + "}");
            }
        }
        // stdin closed: close every client without waiting, then exit.
        for (ConsumerHandle c : consumers.values()) c.consumer.wakeup();
        for (KafkaProducer<byte[], byte[]> p : producers.values()) p.close(Duration.ZERO);
        OUT.flush();
        Runtime.getRuntime().halt(0);
    }

    private static void dispatch(long id, Map<String, Object> req) throws Exception {
        String op = (String) req.get("op");
        int handle = req.containsKey("handle") ? (int) Json.num(req.get("handle")) : 0;
        switch (op) {
            case "open-producer": {
                int h = HANDLES.incrementAndGet();
                Properties props = props(req);
                props.put("key.serializer", "org.apache.kafka.common.serialization.ByteArraySerializer");
                props.put("value.serializer", "org.apache.kafka.common.serialization.ByteArraySerializer");
                producers.put(h, new KafkaProducer<>(props));
                producerThreads.put(h, Executors.newSingleThreadExecutor(daemon("kchaos-producer-" + h)));
                write("{\"id\":" + id + ",\"handle\":" + h + "}");
                return;
            }
            case "send": {
                KafkaProducer<byte[], byte[]> p = producer(handle);
                String key = (String) req.get("key");
                ProducerRecord<byte[], byte[]> r = new ProducerRecord<>((String) req.get("topic"),
                        (int) Json.num(req.get("partition")),
                        key == null ? null : key.getBytes(StandardCharsets.UTF_8),
                        ((String) req.get("value")).getBytes(StandardCharsets.UTF_8));
                // send() may block for metadata (max.block.ms): never on the
                // reader thread, which serves every handle.
                producerThreads.get(handle).execute(() -> {
                    try {
                        p.send(r, (md, e) -> {
                            if (e != null) write("{\"id\":" + id + ",\"error\":" + error(e) + "}");
                            else write("{\"id\":" + id + ",\"offset\":" + (md.hasOffset() ? md.offset() : -1) + "}");
                        });
                    } catch (Exception e) {
                        write("{\"id\":" + id + ",\"error\":" + error(e) + "}");
                    }
                });
                return;
            }
            case "open-consumer": {
                int h = HANDLES.incrementAndGet();
                Properties props = props(req);
                props.put("key.deserializer", "org.apache.kafka.common.serialization.ByteArrayDeserializer");
                props.put("value.deserializer", "org.apache.kafka.common.serialization.ByteArrayDeserializer");
                ConsumerHandle c = new ConsumerHandle(h, new KafkaConsumer<>(props));
                consumers.put(h, c);
                write("{\"id\":" + id + ",\"handle\":" + h + "}");
                return;
            }
            case "offsets":
            case "assign":
            case "poll": {
                ConsumerHandle c = consumers.get(handle);
                if (c == null) throw new IllegalStateException("no consumer handle " + handle + " (closed?)");
                c.thread.execute(() -> {
                    try {
                        write("{\"id\":" + id + "," + c.run(op, req) + "}");
                    } catch (Exception e) {
                        write("{\"id\":" + id + ",\"error\":" + error(e) + "}");
                    }
                });
                return;
            }
            case "close": {
                KafkaProducer<byte[], byte[]> p = producers.remove(handle);
                ExecutorService pt = producerThreads.remove(handle);
                ConsumerHandle c = consumers.remove(handle);
                if (p != null) {
                    // A crash, or the end of the run: nothing is flushed;
                    // what is buffered or in flight fails in its callback.
                    new Thread(() -> {
                        p.close(Duration.ZERO);
                        pt.shutdown();
                        write("{\"id\":" + id + "}");
                    }, "kchaos-close-" + handle).start();
                } else if (c != null) {
                    c.consumer.wakeup();
                    c.thread.execute(() -> {
                        try {
                            c.consumer.close(Duration.ofSeconds(5));
                        } catch (Exception ignored) {
                            // closing: nothing to tell
                        }
                        c.thread.shutdown();
                        write("{\"id\":" + id + "}");
                    });
                } else {
                    write("{\"id\":" + id + "}");
                }
                return;
            }
            default:
                throw new IllegalArgumentException("unknown op " + op);
        }
    }

    /** One KafkaConsumer and the one thread that may touch it. */
    private static final class ConsumerHandle {
        final KafkaConsumer<byte[], byte[]> consumer;
        final ExecutorService thread;
        String topic;

        ConsumerHandle(int h, KafkaConsumer<byte[], byte[]> consumer) {
            this.consumer = consumer;
            this.thread = Executors.newSingleThreadExecutor(daemon("kchaos-consumer-" + h));
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
                    return poll(Duration.ofMillis(Json.num(req.get("timeout_ms"))));
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
        private String poll(Duration timeout) {
            StringBuilder sb = new StringBuilder();
            ConsumerRecords<byte[], byte[]> recs = ConsumerRecords.empty();
            StringBuilder errs = new StringBuilder();
            StringBuilder resets = new StringBuilder();
            try {
                recs = consumer.poll(timeout);
            } catch (LogTruncationException e) {
                for (Map.Entry<TopicPartition, OffsetAndMetadata> d : e.divergentOffsets().entrySet()) {
                    consumer.seek(d.getKey(), d.getValue().offset());
                    sep(resets).append('"').append(d.getKey().partition()).append("\":").append(d.getValue().offset());
                }
            } catch (org.apache.kafka.clients.consumer.InvalidOffsetException e) {
                for (TopicPartition tp : e.partitions()) {
                    sep(errs).append("{\"partition\":").append(tp.partition()).append(",\"error\":")
                            .append(error(e, "OFFSET_OUT_OF_RANGE")).append('}');
                }
            } catch (WakeupException e) {
                throw new IllegalStateException("consumer closed", e);
            }
            sb.append("\"records\":[");
            String sep = "";
            for (ConsumerRecord<byte[], byte[]> r : recs) {
                sb.append(sep).append("{\"p\":").append(r.partition()).append(",\"o\":").append(r.offset())
                        .append(",\"v\":").append(Json.quote(r.value() == null ? "" : new String(r.value(), StandardCharsets.UTF_8)))
                        .append(",\"e\":").append(r.leaderEpoch().orElse(-1)).append('}');
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
    }

    /** The loaded kafka-clients' version (from its jar: the class that knows it moved between releases). */
    private static String clientVersion() {
        try (InputStream v = KafkaProducer.class.getResourceAsStream("/kafka/kafka-version.properties")) {
            Properties p = new Properties();
            if (v != null) p.load(v);
            return p.getProperty("version", "unknown");
        } catch (IOException e) {
            return "unknown";
        }
    }

    private static StringBuilder sep(StringBuilder sb) {
        if (sb.length() > 0) sb.append(',');
        return sb;
    }

    private static KafkaProducer<byte[], byte[]> producer(int h) {
        KafkaProducer<byte[], byte[]> p = producers.get(h);
        if (p == null) throw new IllegalStateException("no producer handle " + h + " (closed?)");
        return p;
    }

    private static Properties props(Map<String, Object> req) {
        Properties props = new Properties();
        Object m = req.get("props");
        if (m instanceof Map) for (Map.Entry<?, ?> e : ((Map<?, ?>) m).entrySet()) props.put(e.getKey(), String.valueOf(e.getValue()));
        return props;
    }

    private static ThreadFactory daemon(String name) {
        return r -> {
            Thread t = new Thread(r, name);
            t.setDaemon(true);
            return t;
        };
    }

    private static String error(Throwable e) {
        return error(e, null);
    }

    /**
     * The error object: the exception (unwrapped to the Kafka exception
     * it carries, if any), Kafka's name for it, and what the client says
     * of it. kafkaName overrides forException where the exception is the
     * client's own and has no error code (the consumer's offset errors).
     */
    private static String error(Throwable e, String kafkaName) {
        Throwable t = e;
        while ((t instanceof ExecutionException || t instanceof CompletionException
                || (t instanceof KafkaException && !(t instanceof ApiException) && t.getCause() instanceof ApiException))
                && t.getCause() != null) {
            t = t.getCause();
        }
        String name = kafkaName != null ? kafkaName : Errors.forException(t).name();
        return "{\"class\":" + Json.quote(t.getClass().getName()) + ",\"message\":" + Json.quote(String.valueOf(t.getMessage()))
                + ",\"kafka\":" + Json.quote(name) + ",\"retriable\":" + (t instanceof RetriableException)
                + ",\"timeout\":" + (t instanceof org.apache.kafka.common.errors.TimeoutException) + "}";
    }

    private static void write(String line) {
        synchronized (OUT) {
            OUT.print(line);
            OUT.print('\n');
            OUT.flush();
        }
    }

    /** The least JSON the protocol needs: objects, arrays, strings, numbers, booleans, null. */
    static final class Json {
        private final String s;
        private int i;

        private Json(String s) {
            this.s = s;
        }

        @SuppressWarnings("unchecked")
        static Map<String, Object> object(String line) {
            Json j = new Json(line);
            Object v = j.value();
            j.ws();
            if (!(v instanceof Map) || j.i != line.length()) throw new IllegalArgumentException("not one JSON object: " + line);
            return (Map<String, Object>) v;
        }

        static long num(Object o) {
            if (o instanceof Number) return ((Number) o).longValue();
            throw new IllegalArgumentException("want a number, got " + o);
        }

        static String quote(String v) {
            StringBuilder sb = new StringBuilder("\"");
            for (int k = 0; k < v.length(); k++) {
                char c = v.charAt(k);
                switch (c) {
                    case '"': sb.append("\\\""); break;
                    case '\\': sb.append("\\\\"); break;
                    case '\n': sb.append("\\n"); break;
                    case '\r': sb.append("\\r"); break;
                    case '\t': sb.append("\\t"); break;
                    default:
                        if (c < 0x20) sb.append(String.format("\\u%04x", (int) c));
                        else sb.append(c);
                }
            }
            return sb.append('"').toString();
        }

        private void ws() {
            while (i < s.length() && Character.isWhitespace(s.charAt(i))) i++;
        }

        private Object value() {
            ws();
            if (i >= s.length()) throw new IllegalArgumentException("unexpected end of JSON");
            char c = s.charAt(i);
            if (c == '{') {
                Map<String, Object> m = new LinkedHashMap<>();
                i++;
                ws();
                if (s.charAt(i) == '}') { i++; return m; }
                while (true) {
                    ws();
                    String k = string();
                    ws();
                    expect(':');
                    m.put(k, value());
                    ws();
                    if (s.charAt(i) == ',') { i++; continue; }
                    expect('}');
                    return m;
                }
            }
            if (c == '[') {
                List<Object> l = new ArrayList<>();
                i++;
                ws();
                if (s.charAt(i) == ']') { i++; return l; }
                while (true) {
                    l.add(value());
                    ws();
                    if (s.charAt(i) == ',') { i++; continue; }
                    expect(']');
                    return l;
                }
            }
            if (c == '"') return string();
            if (s.startsWith("true", i)) { i += 4; return Boolean.TRUE; }
            if (s.startsWith("false", i)) { i += 5; return Boolean.FALSE; }
            if (s.startsWith("null", i)) { i += 4; return null; }
            int b = i;
            while (i < s.length() && "+-0123456789.eE".indexOf(s.charAt(i)) >= 0) i++;
            if (b == i) throw new IllegalArgumentException("bad JSON at " + b + ": " + s);
            String n = s.substring(b, i);
            return n.contains(".") || n.contains("e") || n.contains("E") ? (Object) Double.parseDouble(n) : (Object) Long.parseLong(n);
        }

        private void expect(char c) {
            if (i >= s.length() || s.charAt(i) != c) throw new IllegalArgumentException("want '" + c + "' at " + i + ": " + s);
            i++;
        }

        private String string() {
            expect('"');
            StringBuilder sb = new StringBuilder();
            while (true) {
                char c = s.charAt(i++);
                if (c == '"') return sb.toString();
                if (c != '\\') { sb.append(c); continue; }
                char e = s.charAt(i++);
                switch (e) {
                    case 'n': sb.append('\n'); break;
                    case 'r': sb.append('\r'); break;
                    case 't': sb.append('\t'); break;
                    case 'b': sb.append('\b'); break;
                    case 'f': sb.append('\f'); break;
                    case 'u': sb.append((char) Integer.parseInt(s.substring(i, i + 4), 16)); i += 4; break;
                    default: sb.append(e);
                }
            }
        }
    }
}
