// KchaosClient is kchaos's driver for Apache Kafka's own Java client
// (workloads/java_*.go): one JVM per workload run (and one per group
// member, so that a member can be killed alone), told what to do on stdin
// and answering on stdout, one JSON object a line. It only moves records:
// the Go workload owns the history and its clock.
//
// Requests: {"id":N,"op":OP,"handle":H,...}. Every response carries the
// request's id and either its result or "error": {"class","message",
// "kafka","retriable","timeout","not_attempted"}, where "kafka" is
// Errors.forException(e).name(): the Go side maps that onto kchaos's
// error names and fail/info classes (workloads/java_errors.go). A group
// member's rebalance callbacks are lines of their own, id 0 with an
// "event" (MemberHandle).
//
// A KafkaProducer is thread-safe and sends asynchronously: a send's
// response is written by its callback, so a producer's in-flight sends
// are really concurrent. A KafkaConsumer is not: each consumer, member
// and transactional handle has a thread of its own that runs its requests
// in order. The other classes of this folder are those handles: the
// assigned consumer (ConsumerHandle), the transactional producer with its
// read_committed reader (TxnHandle), the group member (MemberHandle), the
// share-group member (ShareHandle, made by name: its class exists only
// in clients from 4.1) and the metadata workload's admin client
// (AdminHandle).
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
import org.apache.kafka.common.errors.*;
import org.apache.kafka.common.protocol.Errors;

public final class KchaosClient {
    private static final PrintStream OUT = new PrintStream(new FileOutputStream(FileDescriptor.out), false, StandardCharsets.UTF_8);
    private static final AtomicInteger HANDLES = new AtomicInteger();
    private static final Map<Integer, KafkaProducer<byte[], byte[]>> producers = new ConcurrentHashMap<>();
    private static final Map<Integer, ExecutorService> producerThreads = new ConcurrentHashMap<>();
    private static final Map<Integer, ConsumerHandle> consumers = new ConcurrentHashMap<>();
    private static final Map<Integer, TxnHandle> txns = new ConcurrentHashMap<>();
    private static final Map<Integer, MemberHandle> members = new ConcurrentHashMap<>();
    private static final Map<Integer, AdminHandle> admins = new ConcurrentHashMap<>();
    private static final Map<Integer, Served> shares = new ConcurrentHashMap<>();

    /**
     * A handle that runs its requests on a thread of its own and is made
     * by name (ShareHandle: compiled only where its client classes exist).
     */
    interface Served {
        void submit(long id, String op, Map<String, Object> req);

        void abandon();
    }

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
        // A group member's consumer is not closed (that would leave the
        // group): the JVM's exit drops its connections, as a crash.
        for (ConsumerHandle c : consumers.values()) c.consumer.wakeup();
        for (KafkaProducer<byte[], byte[]> p : producers.values()) p.close(Duration.ZERO);
        for (TxnHandle t : txns.values()) t.producer.close(Duration.ZERO);
        OUT.flush();
        Runtime.getRuntime().halt(0);
    }

    private static void dispatch(long id, Map<String, Object> req) throws Exception {
        String op = (String) req.get("op");
        int handle = req.containsKey("handle") ? (int) Json.num(req.get("handle")) : 0;
        switch (op) {
            case "open-producer": {
                int h = HANDLES.incrementAndGet();
                producers.put(h, new KafkaProducer<>(producerProps(props(req, "props"))));
                producerThreads.put(h, Executors.newSingleThreadExecutor(daemon("kchaos-producer-" + h)));
                write("{\"id\":" + id + ",\"handle\":" + h + "}");
                return;
            }
            case "send": {
                KafkaProducer<byte[], byte[]> p = producers.get(handle);
                if (p == null) throw new IllegalStateException("no producer handle " + handle + " (closed?)");
                ProducerRecord<byte[], byte[]> r = record(req);
                // send() may block for metadata (max.block.ms): never on the
                // reader thread, which serves every handle.
                producerThreads.get(handle).execute(() -> send(id, p, r));
                return;
            }
            case "open-consumer": {
                int h = HANDLES.incrementAndGet();
                consumers.put(h, new ConsumerHandle(h, new KafkaConsumer<>(consumerProps(props(req, "props")))));
                write("{\"id\":" + id + ",\"handle\":" + h + "}");
                return;
            }
            case "offsets":
            case "assign":
            case "poll": {
                ConsumerHandle c = consumers.get(handle);
                if (c != null) {
                    c.thread.execute(() -> respond(id, () -> c.run(op, req)));
                    return;
                }
                MemberHandle m = members.get(handle);
                if (m == null) throw new IllegalStateException("no consumer handle " + handle + " (closed?)");
                m.submit(id, op, req);
                return;
            }
            case "open-txn": {
                int h = HANDLES.incrementAndGet();
                txns.put(h, new TxnHandle(h, producerProps(props(req, "props")), consumerProps(props(req, "consumer_props"))));
                write("{\"id\":" + id + ",\"handle\":" + h + "}");
                return;
            }
            case "txn-id":
            case "txn-send":
            case "txn-poll":
            case "txn-end": {
                TxnHandle t = txns.get(handle);
                if (t == null) throw new IllegalStateException("no transactional handle " + handle + " (closed?)");
                t.thread.execute(() -> {
                    if (op.equals("txn-send")) send(id, t.producer, record(req));
                    else respond(id, () -> t.run(op, req));
                });
                return;
            }
            case "open-member": {
                int h = HANDLES.incrementAndGet();
                members.put(h, new MemberHandle(h, consumerProps(props(req, "props")), (String) req.get("topic")));
                write("{\"id\":" + id + ",\"handle\":" + h + "}");
                return;
            }
            case "commit":
            case "leave":
            case "rebalance-done": {
                MemberHandle m = members.get(handle);
                if (m == null) throw new IllegalStateException("no member handle " + handle + " (closed?)");
                m.submit(id, op, req);
                return;
            }
            case "open-share": {
                // By name: a client before 4.1 has no share consumer, and
                // the driver is built without ShareHandle (java_build.go).
                int h = HANDLES.incrementAndGet();
                Served sh;
                try {
                    sh = (Served) Class.forName("ShareHandle").getConstructor(int.class, Properties.class, String.class)
                            .newInstance(h, consumerProps(props(req, "props")), (String) req.get("topic"));
                } catch (java.lang.reflect.InvocationTargetException e) {
                    throw e.getCause() instanceof Exception ? (Exception) e.getCause() : e;
                }
                shares.put(h, sh);
                write("{\"id\":" + id + ",\"handle\":" + h + "}");
                return;
            }
            case "share-poll":
            case "share-ack":
            case "share-leave": {
                Served sh = shares.get(handle);
                if (sh == null) throw new IllegalStateException("no share handle " + handle + " (closed?)");
                sh.submit(id, op, req);
                return;
            }
            case "open-admin": {
                int h = HANDLES.incrementAndGet();
                admins.put(h, new AdminHandle(props(req, "props")));
                write("{\"id\":" + id + ",\"handle\":" + h + "}");
                return;
            }
            case "admin": {
                AdminHandle a = admins.get(handle);
                if (a == null) throw new IllegalStateException("no admin handle " + handle + " (closed?)");
                a.run(id, req);
                return;
            }
            case "close":
                close(id, handle);
                return;
            default:
                throw new IllegalArgumentException("unknown op " + op);
        }
    }

    /** Closes a handle; the response comes once it is closed. */
    private static void close(long id, int handle) {
        KafkaProducer<byte[], byte[]> p = producers.remove(handle);
        ExecutorService pt = producerThreads.remove(handle);
        ConsumerHandle c = consumers.remove(handle);
        TxnHandle t = txns.remove(handle);
        MemberHandle m = members.remove(handle);
        AdminHandle a = admins.remove(handle);
        Served sh = shares.remove(handle);
        if (sh != null) {
            sh.abandon();
            write("{\"id\":" + id + "}");
        } else if (p != null) {
            // A crash, or the end of the run: nothing is flushed; what is
            // buffered or in flight fails in its callback.
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
        } else if (t != null) {
            // Not on its thread, which may wait in a commit: the producer
            // is abandoned with its transaction open (close(0) sends no
            // abort), as a crashed process's.
            new Thread(() -> {
                t.close();
                write("{\"id\":" + id + "}");
            }, "kchaos-close-" + handle).start();
        } else if (m != null) {
            m.abandon();
            write("{\"id\":" + id + "}");
        } else if (a != null) {
            new Thread(() -> {
                a.close();
                write("{\"id\":" + id + "}");
            }, "kchaos-close-" + handle).start();
        } else {
            write("{\"id\":" + id + "}");
        }
    }

    private static ProducerRecord<byte[], byte[]> record(Map<String, Object> req) {
        String key = (String) req.get("key");
        return new ProducerRecord<>((String) req.get("topic"), (int) Json.num(req.get("partition")),
                key == null ? null : key.getBytes(StandardCharsets.UTF_8),
                ((String) req.get("value")).getBytes(StandardCharsets.UTF_8));
    }

    /** Sends r; the callback answers request id. */
    private static void send(long id, KafkaProducer<byte[], byte[]> p, ProducerRecord<byte[], byte[]> r) {
        try {
            p.send(r, (md, e) -> {
                if (e != null) write("{\"id\":" + id + ",\"error\":" + error(e) + "}");
                else write("{\"id\":" + id + ",\"offset\":" + (md.hasOffset() ? md.offset() : -1) + "}");
            });
        } catch (Exception e) {
            write("{\"id\":" + id + ",\"error\":" + error(e) + "}");
        }
    }

    /** A request's result: the fields of its response, without the id. */
    interface Result {
        String get() throws Exception;
    }

    /** Runs r and writes its response or its error. */
    static void respond(long id, Result r) {
        String out;
        try {
            out = "{\"id\":" + id + "," + r.get() + "}";
        } catch (Exception e) {
            out = "{\"id\":" + id + ",\"error\":" + error(e) + "}";
        }
        write(out);
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

    static StringBuilder sep(StringBuilder sb) {
        if (sb.length() > 0) sb.append(',');
        return sb;
    }

    static Properties props(Map<String, Object> req, String field) {
        Properties props = new Properties();
        Object m = req.get(field);
        if (m instanceof Map) for (Map.Entry<?, ?> e : ((Map<?, ?>) m).entrySet()) props.put(e.getKey(), String.valueOf(e.getValue()));
        return props;
    }

    private static Properties producerProps(Properties props) {
        props.put("key.serializer", "org.apache.kafka.common.serialization.ByteArraySerializer");
        props.put("value.serializer", "org.apache.kafka.common.serialization.ByteArraySerializer");
        return props;
    }

    private static Properties consumerProps(Properties props) {
        props.put("key.deserializer", "org.apache.kafka.common.serialization.ByteArrayDeserializer");
        props.put("value.deserializer", "org.apache.kafka.common.serialization.ByteArrayDeserializer");
        return props;
    }

    static ThreadFactory daemon(String name) {
        return r -> {
            Thread t = new Thread(r, name);
            t.setDaemon(true);
            return t;
        };
    }

    /**
     * NotAttempted marks an error of a request the client refused before
     * sending anything (TxnHandle's commit in an error state): the Go side
     * may call it definite.
     */
    static final class NotAttempted extends RuntimeException {
        NotAttempted(RuntimeException cause) {
            super(cause);
        }
    }

    static String error(Throwable e) {
        return error(e, null);
    }

    /**
     * The error object: the exception (unwrapped to the Kafka exception
     * it carries, if any), Kafka's name for it, and what the client says
     * of it. kafkaName overrides forException where the exception is the
     * client's own and has no error code (the consumer's offset errors).
     */
    static String error(Throwable e, String kafkaName) {
        boolean notAttempted = e instanceof NotAttempted;
        Throwable t = notAttempted ? e.getCause() : e;
        while ((t instanceof ExecutionException || t instanceof CompletionException
                || (t instanceof KafkaException && !(t instanceof ApiException) && t.getCause() instanceof ApiException))
                && t.getCause() != null) {
            t = t.getCause();
        }
        String name = kafkaName != null ? kafkaName : Errors.forException(t).name();
        return "{\"class\":" + Json.quote(t.getClass().getName()) + ",\"message\":" + Json.quote(String.valueOf(t.getMessage()))
                + ",\"kafka\":" + Json.quote(name) + ",\"retriable\":" + (t instanceof RetriableException)
                + ",\"timeout\":" + (t instanceof org.apache.kafka.common.errors.TimeoutException)
                + (notAttempted ? ",\"not_attempted\":true" : "") + "}";
    }

    static void write(String line) {
        synchronized (OUT) {
            OUT.print(line);
            OUT.print('\n');
            OUT.flush();
        }
    }
}
