// Package workloads drives Kafka clients that produce and consume under a
// chosen durability setting and records every operation into a history
// (format v1, docs/HISTORY.md) through a histories.Recorder.
//
// A run has four parts, each in its own file:
//
//   - producers (producer.go): N concurrent Jepsen processes, each with one
//     send in flight; in pipelined mode each producer client has several
//     in-flight slots and every slot is a process of its own;
//     With workload.transactions (a kind of its own, workloads/txn, over
//     each driver's transactional client) every producer is
//     transactional instead: each process runs one transaction at a time,
//     recorded as one txn op (histories/txn.go), and may crash on purpose
//     to be fenced by its successor;
//   - consumers (consumer.go): assigned partitions, every poll recorded with
//     partition, offset, value and the batch's leader epoch;
//     With workload.group (a kind of its own, workloads/groups, over each
//     driver's group member) the
//     consumers are members of one consumer group instead: each subscribes,
//     polls with its member id and generation, commits (auto or after
//     delivery) and records the rebalances its client learns
//     (histories/groups.go); GroupControl lets the nemesis kill, start,
//     stall a member or make it leave;
//   - the workload kinds of their own packages (kind.go), registered by
//     name and linked by workloads/kinds, run inside Run: in the plain
//     producers' place (ProducerKind: the transactional producers,
//     workloads/txn) or beside the producers and consumers (MemberKind:
//     the consumer group's members, workloads/groups, and the share
//     group's, workloads/shares, which drain before the final read);
//   - the final read (finalread.go): after the faults heal, each partition
//     read from its log start to its high watermark (to its last stable
//     offset when it reads at read_committed);
//   - the observer (observer.go): process -2, sampling leader, ISR, ELR,
//     high watermark and per-replica log end offsets.
//
// The Kafka client is a Driver (driver.go): franz-go (package
// workloads/franz), segmentio/kafka-go (package workloads/kafkago), or
// Apache Kafka's own Java client (package workloads/java). All write the
// same history; a driver refuses, at Validate time, a setting it cannot
// honour, and declares the settings only some clients take
// (Capabilities). Each driver package imports the seam and registers its
// driver at init (RegisterDriver); the seam never imports one: a program
// links them all through workloads/drivers. Where the seam calls franz-go
// for needs of its own (Kafka's error codes, the metadata workload's admin
// for the Go drivers), that is not a driver; nor is the share group's
// admin (workloads/shares).
//
// The java driver runs one JVM per workload run on the kchaos host, as the
// Go clients run on the host and reach the brokers the same way, so every
// client-side fault (cut-clients, producer-crash) acts on it alike. The
// JVM's source (java/javaclient/KchaosClient.java) is embedded and built
// on first use per client version (java/build.go: Maven resolves
// kafka-clients, javac compiles) into os.UserCacheDir()/kchaos/java/.
// The driver speaks JSON lines with it on stdin/stdout (java/proc.go):
// requests carry an id and a client handle; sends are asynchronous in the
// JVM (KafkaProducer.send's callback answers), so in-flight concurrency is
// real; each KafkaConsumer has a thread of its own. Errors come back as
// the exception's class, Kafka's error name and whether the client calls
// it retriable or a timeout, and are mapped once, in Go (java/errors.go),
// onto the error names and fail/info classes the Go drivers give. The
// client version is workload.client_version, else the cluster's
// (Config.ClusterVersion, set by the harness).
//
// Whether a failed send is `fail` (definitely not appended) or `info`
// (maybe appended) is decided by one documented table (errors.go).
package workloads
