package scenario

import (
	"fmt"
	"maps"
	"strings"

	"github.com/kchaos/kchaos/cluster"
)

// TieredSpec is cluster.tiered: tiered storage (KIP-405) on, with a remote
// tier shared by every broker (cluster.Tiered says how). Zero fields take
// cluster's defaults. The workload's topic gets the remote-storage
// settings (TieredTopicConfigs) under its own topic.configs, which win.
type TieredSpec struct {
	SegmentMS        int64 `yaml:"segment_ms,omitempty"`
	LocalRetentionMS int64 `yaml:"local_retention_ms,omitempty"`
	TaskIntervalMS   int64 `yaml:"task_interval_ms,omitempty"`
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
	if v := cfg["cleanup.policy"]; strings.Contains(v, "compact") {
		add("topic.configs.cleanup.policy", "%q: Kafka refuses remote storage on a compacted topic", v)
	}
	return errs
}
