package workloads

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/kchaos/kchaos/histories"
)

// Driver names, every driver's, here so that validation (Config.Validate,
// the settings only one driver takes) can name them whether or not a
// program links the driver: a driver package registers itself under its
// constant (RegisterDriver).
const (
	DriverFranz   = "franz"    // github.com/twmb/franz-go (kgo), in workloads/franz
	DriverKafkaGo = "kafka-go" // github.com/segmentio/kafka-go, in workloads/kafkago
	DriverJava    = "java"     // org.apache.kafka:kafka-clients, in a JVM (workloads/java)
)

// canonicalDriver maps accepted spellings to a driver name ("" is franz),
// beside the names, so that every reading of a driver name (Defaults,
// the registry's look-ups, Capabilities) goes through it.
func canonicalDriver(name string) string {
	name = strings.ToLower(strings.TrimSpace(name))
	switch name {
	case "", "franz-go", "franzgo":
		return DriverFranz
	case "kafkago", "segmentio":
		return DriverKafkaGo
	case "kafka-clients", "apache":
		return DriverJava
	}
	return name
}

// Driver is one Kafka client library. The workload's loops (producer.go,
// consumer.go, finalread.go) own the history; a driver only moves records,
// so every driver writes identical history formats.
type Driver interface {
	Name() string
	// Refuse lists the settings of cfg that this client cannot honour.
	// Config.Validate reports them: a driver never silently ignores one.
	Refuse(cfg Config) []FieldError
	// NewProducer returns one producer client; id names it in client ids.
	// Its Send is called concurrently by cfg.MaxInFlight slots.
	NewProducer(cfg Config, bootstrap []string, id int) (Producer, error)
	// NewConsumer returns one consumer client, not yet assigned.
	NewConsumer(cfg Config, bootstrap []string, id int) (Consumer, error)
}

// Message is one record to send. The workload picks the partition itself
// (also in key mode), so that the invoke can name it before the send.
type Message struct {
	Partition int32
	Key       string // empty: no key
	Value     string
}

// Producer sends records. Send may be called concurrently.
type Producer interface {
	// Send produces m to its partition and blocks until the client reports
	// the outcome: the record's offset, or the error the client gave. With
	// acks=0 the offset is meaningless and ignored.
	Send(ctx context.Context, m Message) (offset int64, err error)
	// Close releases the client; sends still in flight fail.
	Close()
}

// Consumer reads assigned partitions from explicit positions. It is used
// by one goroutine at a time.
type Consumer interface {
	// Offsets returns each partition's log start (ResetEarliest) or end
	// (ResetLatest): the high watermark, or at read_committed the last
	// stable offset, as the consumer may read them.
	Offsets(ctx context.Context, partitions []int32, rule string) (map[int32]int64, error)
	// Assign (re)positions the consumer: from now on it reads exactly these
	// partitions, each from the given offset.
	Assign(ctx context.Context, offsets map[int32]int64) error
	// Poll waits until records arrive or ctx ends, and returns what the
	// client fetched. A nil error with no records is an empty poll.
	Poll(ctx context.Context) (Fetch, error)
	Close()
}

// Fetch is what one Poll returned.
type Fetch struct {
	// Records in fetch order per partition, each with its batch's leader
	// epoch (-1 where the client cannot tell).
	Records []histories.Record
	// Errors are per-partition errors, e.g. OFFSET_OUT_OF_RANGE, which the
	// consumer loop answers with a reset.
	Errors []PartitionError
	// Resets are positions the client moved to by itself (franz-go, on
	// detecting log truncation): the consumer loop records them as assigns.
	Resets map[int32]int64
	// LogStart is each polled partition's log start offset, where known.
	LogStart map[int32]int64
	// Next is each partition's position after this poll, where the client
	// saw more than Records shows: transaction markers (control records)
	// take offsets but are no records, so a reader that must reach an end
	// offset steps by Next, not by the last record's offset + 1.
	Next map[int32]int64
}

// PartitionError is a fetch error on one partition.
type PartitionError struct {
	Partition int32
	Err       error
}

// drivers is every driver by name, each registered by its own package at
// init (RegisterDriver: workloads/franz, workloads/kafkago,
// workloads/java). The seam never imports a driver package; a program
// that validates or runs workloads links them all through
// workloads/drivers.
var drivers = map[string]Driver{}

// RegisterDriver adds d under its name (d.Name()). A driver package calls
// it at init; a second driver of the same name, or one without a name,
// panics: that is a program's mistake, not a scenario's.
func RegisterDriver(d Driver) {
	name := d.Name()
	if name == "" {
		panic("workloads: RegisterDriver: a driver without a name")
	}
	if _, dup := drivers[name]; dup {
		panic(fmt.Sprintf("workloads: RegisterDriver: driver %q registered twice", name))
	}
	drivers[name] = d
}

// DriverFor returns the named driver.
func DriverFor(name string) (Driver, bool) {
	d, ok := drivers[name]
	return d, ok
}

// DriverNames lists the registered drivers, sorted.
func DriverNames() []string {
	return slices.Sorted(maps.Keys(drivers))
}

// driverList is DriverNames as a sentence's list: "a, b or c".
func driverList() string { return orList(DriverNames()) }

// orList is ns (not empty) as a sentence's list: "a", "a or b", "a, b or c".
func orList(ns []string) string {
	if len(ns) == 1 {
		return ns[0]
	}
	return strings.Join(ns[:len(ns)-1], ", ") + " or " + ns[len(ns)-1]
}
