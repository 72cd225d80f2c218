// AdminHandle is the metadata workload's admin client in the java driver
// (see KchaosClient and workloads/java_admin.go): the Java Admin client,
// with retries 0 (set by the Go side), so that each change is one request
// whose answer is its outcome, as admin.NewOnce's for the Go drivers.
import java.time.Duration;
import java.util.*;

import org.apache.kafka.clients.admin.*;
import org.apache.kafka.common.KafkaFuture;
import org.apache.kafka.common.config.ConfigResource;

final class AdminHandle {
    private final Admin admin;

    AdminHandle(Properties props) {
        admin = Admin.create(props);
    }

    /**
     * One change, answered when its future completes (the Admin client
     * is thread-safe and asynchronous: no thread waits for it). The
     * request's controller-side timeout is timeout_ms, as
     * cluster/admin's metaTimeoutMS.
     */
    void run(long id, Map<String, Object> req) {
        String action = (String) req.get("action");
        String topic = (String) req.get("topic");
        int timeout = (int) Json.num(req.get("timeout_ms"));
        KafkaFuture<Void> f;
        switch (action) {
            case "create-topic":
                f = admin.createTopics(Collections.singletonList(new NewTopic(topic, (int) Json.num(req.get("partitions")),
                        (short) Json.num(req.get("replication_factor")))), new CreateTopicsOptions().timeoutMs(timeout)).all();
                break;
            case "delete-topic":
                f = admin.deleteTopics(Collections.singletonList(topic), new DeleteTopicsOptions().timeoutMs(timeout)).all();
                break;
            case "create-partitions":
                f = admin.createPartitions(Collections.singletonMap(topic, NewPartitions.increaseTo((int) Json.num(req.get("partitions")))),
                        new CreatePartitionsOptions().timeoutMs(timeout)).all();
                break;
            case "set-config": {
                AlterConfigOp set = new AlterConfigOp(new ConfigEntry((String) req.get("key"), (String) req.get("value")), AlterConfigOp.OpType.SET);
                f = admin.incrementalAlterConfigs(Collections.singletonMap(new ConfigResource(ConfigResource.Type.TOPIC, topic),
                        Collections.singletonList(set)), new AlterConfigsOptions().timeoutMs(timeout)).all();
                break;
            }
            default:
                throw new IllegalArgumentException("unknown admin action " + action);
        }
        f.whenComplete((v, e) -> {
            if (e != null) KchaosClient.write("{\"id\":" + id + ",\"error\":" + KchaosClient.error(e) + "}");
            else KchaosClient.write("{\"id\":" + id + ",\"ok\":true}");
        });
    }

    void close() {
        admin.close(Duration.ZERO);
    }
}
