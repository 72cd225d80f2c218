package histories

import (
	"encoding/json"
	"fmt"
	"os"
)

// RunInfoFile is the name of the run description written beside
// history.jsonl in a run folder. It is an extension of the v1 contract:
// HISTORY.md says the checker learns whether the producer was idempotent
// "from the run's recorded configuration"; this is that record. A bare
// history file without it is checked as from a non-idempotent producer.
const RunInfoFile = "run.json"

// RunInfo describes how a history was made.
type RunInfo struct {
	Scenario     string            `json:"scenario,omitempty"`
	Seed         int64             `json:"seed,omitempty"`
	KafkaVersion string            `json:"kafka_version,omitempty"`
	ELR          bool              `json:"elr,omitempty"`
	Topic        string            `json:"topic,omitempty"`
	Partitions   int               `json:"partitions,omitempty"`
	Replication  int               `json:"replication_factor,omitempty"`
	TopicConfigs map[string]string `json:"topic_configs,omitempty"`
	Producer     ProducerInfo      `json:"producer"`
	Brokers      []BrokerInfo      `json:"brokers,omitempty"`
	Controllers  []int32           `json:"controllers,omitempty"`
}

// ProducerInfo is the producer's durability settings.
type ProducerInfo struct {
	Driver     string `json:"driver,omitempty"`
	Acks       string `json:"acks,omitempty"` // "0", "1" or "all"
	Idempotent bool   `json:"idempotent"`
	Retries    int    `json:"retries"`
}

// BrokerInfo names a broker and its rack.
type BrokerInfo struct {
	ID      int32  `json:"id"`
	Rack    string `json:"rack,omitempty"`
	Address string `json:"address,omitempty"`
}

// WriteRunInfo writes info as indented JSON to path.
func WriteRunInfo(path string, info RunInfo) error {
	b, err := json.MarshalIndent(info, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}

// ReadRunInfo reads a run.json.
func ReadRunInfo(path string) (RunInfo, error) {
	var info RunInfo
	b, err := os.ReadFile(path)
	if err != nil {
		return info, err
	}
	if err := json.Unmarshal(b, &info); err != nil {
		return info, fmt.Errorf("%s: %v", path, err)
	}
	return info, nil
}
