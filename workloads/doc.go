// Package workloads drives Kafka clients that produce and consume under a
// chosen durability setting and records every operation into a history
// (format v1, docs/HISTORY.md) through a histories.Recorder.
//
// A run has four parts, each in its own file:
//
//   - producers (producer.go): N concurrent Jepsen processes, each with one
//     send in flight; in pipelined mode each producer client has several
//     in-flight slots and every slot is a process of its own;
//     With workload.transactions (txn*.go, franz_txn.go) every producer is
//     transactional instead: each process runs one transaction at a time,
//     recorded as one txn op (histories/txn.go), and may crash on purpose
//     to be fenced by its successor;
//   - consumers (consumer.go): assigned partitions, every poll recorded with
//     partition, offset, value and the batch's leader epoch;
//     With workload.group (group*.go, franz_group.go, kafkago_group.go) the
//     consumers are members of one consumer group instead: each subscribes,
//     polls with its member id and generation, commits (auto or after
//     delivery) and records the rebalances its client learns
//     (histories/groups.go); GroupControl lets the nemesis kill, start,
//     stall a member or make it leave;
//   - the final read (finalread.go): after the faults heal, each partition
//     read from its log start to its high watermark (to its last stable
//     offset when it reads at read_committed);
//   - the observer (observer.go): process -2, sampling leader, ISR, ELR,
//     high watermark and per-replica log end offsets.
//
// The Kafka client is a Driver (driver.go): franz-go (franz_*.go) or
// segmentio/kafka-go (kafkago_*.go). Both write the same history; a driver
// refuses, at Validate time, a setting it cannot honour.
//
// Whether a failed send is `fail` (definitely not appended) or `info`
// (maybe appended) is decided by one documented table (errors.go).
package workloads
