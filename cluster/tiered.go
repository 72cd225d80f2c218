package cluster

import (
	"fmt"
	"strconv"
)

// Tiered turns on tiered storage (KIP-405) for a cluster: every broker
// runs Kafka's RemoteLogManager with the topic-based remote log metadata
// manager and kchaos's own RemoteStorageManager (image/rsm:
// org.kchaos.rsm.DirRemoteStorageManager, a directory per tier; Kafka's
// LocalTieredStorage is in a test artifact Maven Central does not serve
// for every release kchaos knows). The tier is RemoteDir in every broker,
// one host folder bind-mounted into all of them by the Docker backend: it
// is shared as an object store is, outlives a kill -9 and can be read from
// the host. The workload's topic gets remote storage, segments that roll
// every SegmentMS and a short local retention (TopicConfigs), so that data
// moves to the remote tier while a run lasts.
type Tiered struct {
	// SegmentMS is the topic's segment.ms: only a rolled segment can be
	// copied to the remote tier, and Kafka 4.x refuses a segment.bytes
	// under 1 MiB, so segments roll by time.
	SegmentMS int64
	// LocalRetentionMS is the topic's local.retention.ms: how long a
	// segment already copied stays on the brokers' disks too.
	LocalRetentionMS int64
	// TaskIntervalMS is remote.log.manager.task.interval.ms: how often
	// each leader copies rolled segments and applies remote retention
	// (Kafka's default is 30 s).
	TaskIntervalMS int64
}

// Tiered-storage defaults: a segment rolls every 2 s under load and is
// copied within a second of that; its local copy goes 2 s later.
const (
	defaultTieredSegmentMS      = 2000
	defaultTieredLocalRetention = 2000
	DefaultTieredTaskInterval   = 1000
)

// RemoteDir is the remote tier's folder inside every broker.
const RemoteDir = "/var/lib/kafka/remote"

// remoteStorageManagerClass is kchaos's RemoteStorageManager in the image
// (image/rsm, built by image/build.sh into lib/kchaos-rsm.jar).
const remoteStorageManagerClass = "org.kchaos.rsm.DirRemoteStorageManager"

// Defaults fills unset fields.
func (t *Tiered) Defaults() {
	if t.SegmentMS == 0 {
		t.SegmentMS = defaultTieredSegmentMS
	}
	if t.LocalRetentionMS == 0 {
		t.LocalRetentionMS = defaultTieredLocalRetention
	}
	if t.TaskIntervalMS == 0 {
		t.TaskIntervalMS = DefaultTieredTaskInterval
	}
}

// Validate reports the first problem with tiered storage on cluster c,
// naming the field (under cluster.tiered).
func (t Tiered) Validate(c *Config) error {
	v, err := ParseVersion(c.KafkaVersion)
	if err == nil && !v.hasTieredStorage() {
		return fmt.Errorf("tiered: tiered storage (KIP-405) is production-ready from Kafka 3.9; %s does not have it", c.KafkaVersion)
	}
	switch {
	case c.Backend != "" && c.Backend != "docker":
		return fmt.Errorf("tiered: the remote tier is a host folder bind-mounted into every broker container: backend %s cannot share one (use backend docker)", c.Backend)
	case c.LogDirs > 1:
		return fmt.Errorf("tiered: with log_dirs %d: kchaos runs tiered storage with one log dir per broker only", c.LogDirs)
	case t.SegmentMS < 500:
		return fmt.Errorf("tiered.segment_ms: %d: want at least 500 (a segment rolls on the first append after it)", t.SegmentMS)
	case t.LocalRetentionMS < 0 && t.LocalRetentionMS != -2:
		return fmt.Errorf("tiered.local_retention_ms: %d: want -2 (as retention.ms) or a positive number", t.LocalRetentionMS)
	case t.TaskIntervalMS < 100 || t.TaskIntervalMS > 60000:
		return fmt.Errorf("tiered.task_interval_ms: %d: want 100..60000", t.TaskIntervalMS)
	}
	return nil
}

// hasTieredStorage reports whether the release has production-ready
// tiered storage with the ListOffsets timestamps kchaos's observer asks
// (earliest-local -4 from 3.6, latest-tiered -5 from 3.9: KIP-1005).
func (v Version) hasTieredStorage() bool { return !v.Less(Version{3, 9, 0}) }

// BrokerConfig is what every broker runs with for the remote tier.
// Broker-wide retention checks run every second too: local retention of
// copied segments is LogManager's periodic retention task. That task's
// first run waits log.initial.task.delay.ms (30 s by default) after the
// broker starts, so a short run (a cluster up, 25 s of writes, a final
// read) could end before any copied segment left a broker's disk: CI saw
// 13 segments in the remote tier and a local log start still 0. One second
// starts it with the tier's own tasks (the config exists in every release
// kchaos runs, 3.9.2 to 4.4.0, read from the jars).
func (t Tiered) BrokerConfig(brokers int) map[string]string {
	return map[string]string{
		"remote.log.storage.system.enable":                         "true",
		"remote.log.storage.manager.class.name":                    remoteStorageManagerClass,
		"rsm.config.dir":                                           RemoteDir,
		"remote.log.metadata.manager.listener.name":                "PLAINTEXT",
		"rlmm.config.remote.log.metadata.topic.replication.factor": strconv.Itoa(min(brokers, 3)),
		"rlmm.config.remote.log.metadata.topic.num.partitions":     "3",
		"remote.log.manager.task.interval.ms":                      strconv.FormatInt(t.TaskIntervalMS, 10),
		"log.retention.check.interval.ms":                          "1000",
		"log.initial.task.delay.ms":                                "1000",
	}
}

// ControllerConfig is what every controller runs with: the KRaft
// controller validates a topic's configs at creation against its own
// configuration, and refuses remote.storage.enable ("Tiered Storage
// functionality is disabled in the broker") unless the system is enabled
// there too (measured on 4.4.0). Controllers run no RemoteLogManager.
func (t Tiered) ControllerConfig() map[string]string {
	return map[string]string{"remote.log.storage.system.enable": "true"}
}

// TopicConfigs are the workload topic's settings for the remote tier.
func (t Tiered) TopicConfigs() map[string]string {
	return map[string]string{
		"remote.storage.enable": "true",
		"segment.ms":            strconv.FormatInt(t.SegmentMS, 10),
		"local.retention.ms":    strconv.FormatInt(t.LocalRetentionMS, 10),
	}
}
