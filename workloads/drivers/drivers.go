// Package drivers links every client driver package: a program that
// validates or runs workloads imports it, for its side effect alone, so
// that every driver is registered with the seam (package workloads,
// RegisterDriver) before the first workload is read. The seam's own
// drivers (franz-go, kafka-go) need nothing more; each driver package
// (importing the seam, never imported by it) is a line here.
package drivers

import (
	// Apache Kafka's Java client, in a JVM: workloads/java.
	_ "github.com/kchaos/kchaos/workloads/java"
)
