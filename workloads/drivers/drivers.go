// Package drivers links every client driver package: a program that
// validates or runs workloads imports it, for its side effect alone, so
// that every driver is registered with the seam (package workloads,
// RegisterDriver) before the first workload is read. Each driver package
// (importing the seam, never imported by it) is a line here; the seam
// holds none.
package drivers

import (
	// franz-go (kgo), the default driver: workloads/franz.
	_ "github.com/kchaos/kchaos/workloads/franz"
	// segmentio/kafka-go: workloads/kafkago.
	_ "github.com/kchaos/kchaos/workloads/kafkago"
	// Apache Kafka's Java client, in a JVM: workloads/java.
	_ "github.com/kchaos/kchaos/workloads/java"
)
