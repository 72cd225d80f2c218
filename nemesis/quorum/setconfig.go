package quorum

import (
	"context"
	"maps"
	"slices"
	"strings"

	"github.com/kchaos/kchaos/histories"
	"github.com/kchaos/kchaos/nemesis"
)

// setConfigKind changes topic configs through the admin API: every backend
// can.
//
// It leaves state: with topic: it changes an internal topic's config
// (__share_group_state), which outlives the run's own topic.
var setConfigKind = nemesis.Kind{Name: histories.FSetConfig, New: func() nemesis.Params { return &SetConfigParams{} },
	LeavesState: "changes topic configs, an internal topic's too, which outlive the run's topic",
	// A config change may allow an unclean election.
	Heal: nemesis.Instant, Color: "#d98c1f", LosesAcked: nemesis.Yes, MovesLeaders: nemesis.No, Draw: nemesis.NotDrawn, Proof: nemesis.AdminProof}

// SetConfigParams are a set-config's.
type SetConfigParams struct {
	// Config is the topic config to set; a null value deletes the key.
	Config map[string]*string `yaml:"config,omitempty"`
	// Topic is the topic whose config changes: the scenario's when empty.
	// Kafka validates an internal topic's config like any other (the
	// controller's ControllerConfigurationValidator checks the name's
	// characters and LogConfig, nothing more), so a story can switch
	// unclean election on for __share_group_state alone.
	Topic string `yaml:"topic,omitempty"`
}

func (cp *SetConfigParams) Validate(p string, st *nemesis.Step, add nemesis.AddFunc) {
	if len(cp.Config) == 0 {
		add(p+".config", "set-config needs at least one key")
	}
	for k := range cp.Config {
		if strings.TrimSpace(k) == "" {
			add(p+".config", "empty key")
		}
	}
	if cp.Topic != "" && strings.TrimSpace(cp.Topic) != cp.Topic {
		add(p+".topic", "%q: a topic name has no surrounding spaces", cp.Topic)
	}
	if st.Target != nil {
		nemesis.ValidateTarget(p+".target", st.Target, false, false, add)
	}
}

// ConfigChanges is the config the step sets (nemesis.ConfigChanger: what
// the harness reads of it without naming this room).
func (cp *SetConfigParams) ConfigChanges() map[string]*string { return cp.Config }

var _ nemesis.ConfigChanger = (*SetConfigParams)(nil)

func (cp *SetConfigParams) Build(nemesis.Step) nemesis.Fault {
	return &setConfig{config: cp.Config, topic: cp.Topic}
}

// setConfig changes topic configs live (for instance
// unclean.leader.election.enable=true while a partition is offline, which
// makes the controller elect a replica outside the ISR). It has no heal:
// a config change is a deliberate act whose effect is the point.
type setConfig struct {
	config map[string]*string
	topic  string // "" for the scenario's
}

func (f *setConfig) Name() string { return histories.FSetConfig }

func (f *setConfig) Spec() map[string]any {
	if f.topic != "" {
		return map[string]any{"config": f.config, "topic": f.topic}
	}
	return map[string]any{"config": f.config}
}

func (f *setConfig) Inject(ctx context.Context, e *nemesis.Env) ([]int32, map[string]any, error) {
	topic := e.Topic
	if f.topic != "" {
		topic = f.topic
	}
	set := map[string]any{}
	for _, k := range slices.Sorted(maps.Keys(f.config)) {
		err := e.AdminCall(ctx, func(ctx context.Context) error {
			return e.Admin.SetTopicConfig(ctx, topic, k, f.config[k])
		})
		if err != nil {
			return nil, map[string]any{"topic": topic, "config": set}, err
		}
		set[k] = nil // deleted: the broker default applies again
		if v := f.config[k]; v != nil {
			set[k] = *v
		}
	}
	return nil, map[string]any{"topic": topic, "config": set}, nil
}

func (f *setConfig) Heal(context.Context, *nemesis.Env) error { return nil }
