package scenario

import (
	"fmt"
	"maps"
	"strconv"
	"strings"

	"github.com/kchaos/kchaos/cluster"
)

// TieredSpec is cluster.tiered: tiered storage (KIP-405) on, with a remote
// tier shared by every broker (cluster.Tiered says how). Zero fields take
// cluster's defaults. The workload's topic gets the remote-storage
// settings (TieredTopicConfigs) under its own topic.configs, which win.
type TieredSpec struct {
	SegmentMS        int64 `yaml:"segment_ms,omitempty" zero:"unset"`
	LocalRetentionMS int64 `yaml:"local_retention_ms,omitempty" zero:"unset"`
	TaskIntervalMS   int64 `yaml:"task_interval_ms,omitempty" zero:"unset"`
}

// config is the cluster package's form (nil when tiered storage is off).
func (t *TieredSpec) config() *cluster.Tiered {
	if t == nil {
		return nil
	}
	return &cluster.Tiered{SegmentMS: t.SegmentMS, LocalRetentionMS: t.LocalRetentionMS, TaskIntervalMS: t.TaskIntervalMS}
}

// tieredTopicKeys are topic configs that only mean something with a remote
// tier: without cluster.tiered Kafka refuses remote.storage.enable=true at
// topic creation, and the local retentions bound nothing.
var tieredTopicKeys = []string{"remote.storage.enable", "local.retention.ms", "local.retention.bytes"}

// topicConfigs is the topic's configs as the harness creates it: the
// remote tier's settings under the scenario's own.
func (s *Scenario) topicConfigs() map[string]string {
	t := s.Cluster.Tiered.config()
	if t == nil {
		return s.Topic.Configs
	}
	t.Defaults()
	out := t.TopicConfigs()
	maps.Copy(out, s.Topic.Configs)
	return out
}

// checkTiered reports topic settings that contradict cluster.tiered, or
// that need it (cluster.Tiered.Validate judges the version and the rest).
func (s *Scenario) checkTiered() []error {
	var errs []error
	add := func(path, format string, args ...any) {
		errs = append(errs, fmt.Errorf("%s: %s", path, fmt.Sprintf(format, args...)))
	}
	cfg := s.Topic.Configs
	if s.Cluster.Tiered == nil {
		for _, k := range tieredTopicKeys {
			if _, ok := cfg[k]; ok && !(k == "remote.storage.enable" && strings.EqualFold(strings.TrimSpace(cfg[k]), "false")) {
				add("topic.configs."+k, "needs a remote tier: set cluster.tiered")
			}
		}
		return errs
	}
	if v, ok := cfg["remote.storage.enable"]; ok && strings.EqualFold(strings.TrimSpace(v), "false") {
		add("topic.configs.remote.storage.enable", "false: cluster.tiered is for the workload's topic; remove the key or cluster.tiered")
	}
	// A compacted topic (which Kafka refuses remote storage on) is refused
	// for every scenario (kafkaconfig.go's notCompacted).
	errs = append(errs, s.checkLocalRetention("ms", "local_retention_ms")...)
	return append(errs, s.checkLocalRetention("bytes", "")...)
}

// checkLocalRetention refuses what Kafka's LogConfig refuses of a topic
// with remote storage: local.retention.<unit> above retention.<unit> (the
// topic's, else the brokers' log.retention.<unit>), or -1 (unbounded)
// under a bounded retention. tieredField is cluster.tiered's field that
// gives the local retention when the topic does not.
func (s *Scenario) checkLocalRetention(unit, tieredField string) []error {
	eff := s.topicConfigs()
	retention, ok := eff["retention."+unit]
	if !ok {
		retention, ok = s.Cluster.BrokerConfig["log.retention."+unit]
	}
	local, hasLocal := eff["local.retention."+unit]
	r, rerr := strconv.ParseInt(strings.TrimSpace(retention), 10, 64)
	l, lerr := strconv.ParseInt(strings.TrimSpace(local), 10, 64)
	if !ok || !hasLocal || rerr != nil || lerr != nil || r == -1 || l == -2 {
		return nil // unbounded retention, or local as retention: anything goes
	}
	field := "topic.configs.local.retention." + unit
	if _, own := s.Topic.Configs["local.retention."+unit]; !own && tieredField != "" {
		field = "cluster.tiered." + tieredField
	}
	switch {
	case l == -1:
		return []error{fmt.Errorf("%s: -1: Kafka refuses an unbounded local retention when retention.%s is %d (use -2: as retention.%s)", field, unit, r, unit)}
	case l > r:
		return []error{fmt.Errorf("%s: %d: Kafka refuses a local retention above retention.%s (%d)", field, l, unit, r)}
	}
	return nil
}
