package workloads

import (
	"math"
	"strings"
)

// The metadata workload's defaults and names, written once.
const (
	// DefaultMetadataRate is metadata changes per second per client: a
	// few a second keep the quorum writing without flooding it with
	// topics (each create makes partitions on the brokers).
	DefaultMetadataRate = 2.0
	// MetadataTopicPrefix starts every topic the metadata workload makes,
	// so its final read knows which topics are its own.
	MetadataTopicPrefix = "kchaos-meta-"
	// MetadataSharedTopic is the topic whose one config key
	// (MetadataConfigKey) every client sets: a register several clients
	// write, judged like one.
	MetadataSharedTopic = MetadataTopicPrefix + "shared"
	MetadataConfigKey   = "retention.ms"
)

// MetadataConfig is workload.metadata: admin clients that change the
// KRaft metadata while the produce workload runs (workloads/metadata).
type MetadataConfig struct {
	// Clients is the number of admin clients; 0 (the default) is none.
	Clients int `yaml:"clients,omitempty" json:"clients,omitempty"`
	// Rate is changes per second per client (default DefaultMetadataRate).
	Rate float64 `yaml:"rate,omitempty" json:"rate,omitempty" zero:"unset"`
}

// Enabled reports whether the workload makes metadata changes.
func (m MetadataConfig) Enabled() bool { return m.Clients > 0 }

// Defaults sets the rate of a workload with clients (DefaultMetadataRate).
// Config.Defaults calls it; exported for workloads/metadata, whose New
// takes the section alone.
func (m *MetadataConfig) Defaults() {
	if m.Enabled() && m.Rate == 0 {
		m.Rate = DefaultMetadataRate
	}
}

func (c *Config) validateMetadata() []FieldError {
	var ps []FieldError
	m := c.Metadata
	if m.Clients < 0 || m.Clients > 16 {
		ps = append(ps, FieldError{Path: "metadata.clients", Msg: "want 0..16 admin clients"})
	}
	if m.Rate < 0 || math.IsNaN(m.Rate) || math.IsInf(m.Rate, 0) || m.Rate > 100 {
		ps = append(ps, FieldError{Path: "metadata.rate", Msg: "want 0 < rate <= 100 changes per second per client"})
	}
	if m.Rate > 0 && !m.Enabled() {
		ps = append(ps, FieldError{Path: "metadata.rate", Msg: "only with metadata.clients"})
	}
	if strings.HasPrefix(c.Topic, MetadataTopicPrefix) && m.Enabled() {
		ps = append(ps, FieldError{Path: "topic", Msg: "the metadata workload owns topics named " + MetadataTopicPrefix + "*: choose another name"})
	}
	return ps
}
