package workloads

// Capabilities are what a driver honours beyond the Driver interface:
// settings only some clients have. Validation asks the driver for them,
// never its name, so that a driver package (workloads/java) says what it
// takes where it is written, and a new driver needs no edit of the seam.
type Capabilities struct {
	// ClientVersion: the client is released with Kafka's own versions
	// (kafka-clients), so a workload may pin one (workload.client_version).
	// The Go clients have no Kafka version: Validate refuses the setting
	// for a driver without it.
	ClientVersion bool
	// VerbatimProps: the client takes the Java client's properties as
	// written (workload.producer_props and consumer_props, and the keys of
	// a --producer-config or --consumer-config file that kchaos does not
	// map onto a workload field). A driver without it would silently drop
	// them, so they are refused.
	VerbatimProps bool
	// ImplicitShareAck: the share consumer has an implicit acknowledgement
	// mode (KafkaShareConsumer's: the next poll accepts what the last one
	// delivered), so workload.shares.ack_mode: implicit can run.
	ImplicitShareAck bool
	// CommitLeaderEpoch: a group member's manual commit carries each
	// partition's leader epoch as the workload gives it (franz-go's
	// OffsetCommit), so workload.group.commit_epoch: record can run.
	// kafka-go's OffsetCommit has no leader epoch; the Java driver
	// commits offsets without one.
	CommitLeaderEpoch bool
	// SubscriptionUserData: a classic member's subscription can carry user
	// data the workload gives (a franz-go GroupBalancer's
	// JoinGroupMetadata, kafka-go's GroupBalancer.UserData), so that
	// workload.group.metadata_bytes can run. The Java client sets it only
	// from a ConsumerPartitionAssignor of its own, and the driver's class
	// path holds Kafka's.
	SubscriptionUserData bool
}

// CapableDriver is a Driver with some of Capabilities; a driver that is
// not one has none of them.
type CapableDriver interface {
	Driver
	Capabilities() Capabilities
}

// capabilitiesOf is the named driver's Capabilities: none for a driver
// that is not a CapableDriver or is not registered (Validate refuses an
// unknown name on its own).
func capabilitiesOf(name string) Capabilities {
	if d, ok := drivers[canonicalDriver(name)].(CapableDriver); ok {
		return d.Capabilities()
	}
	return Capabilities{}
}

// driversWith lists, as driverList does, the registered drivers for which
// has is true, so that a refusal names the drivers that would take the
// setting: "java", "franz or java".
func driversWith(has func(Driver) bool) string {
	var ns []string
	for _, n := range DriverNames() {
		if has(drivers[n]) {
			ns = append(ns, n)
		}
	}
	if len(ns) == 0 {
		return "(none linked)"
	}
	return orList(ns)
}

// capableDrivers lists, as driversWith does, the drivers whose
// Capabilities the selector has picks (takesClientVersion, ...).
func capableDrivers(has func(Capabilities) bool) string {
	return driversWith(func(d Driver) bool {
		cd, ok := d.(CapableDriver)
		return ok && has(cd.Capabilities())
	})
}

// The selectors of capableDrivers, one per field of Capabilities.
var (
	takesClientVersion    = func(c Capabilities) bool { return c.ClientVersion }
	takesVerbatimProps    = func(c Capabilities) bool { return c.VerbatimProps }
	takesImplicitShareAck = func(c Capabilities) bool { return c.ImplicitShareAck }
	takesCommitEpoch      = func(c Capabilities) bool { return c.CommitLeaderEpoch }
	takesUserData         = func(c Capabilities) bool { return c.SubscriptionUserData }
)
