package nemesis

import (
	"context"
	"maps"
	"slices"
	"strings"

	"github.com/kchaos/kchaos/histories"
)

// setConfigKind changes topic configs through the admin API: every backend
// can.
var setConfigKind = Kind{Name: histories.FSetConfig, New: func() Params { return &SetConfigParams{} }}

// SetConfigParams are a set-config's.
type SetConfigParams struct {
	// Config is the topic config to set; a null value deletes the key.
	Config map[string]*string `yaml:"config,omitempty"`
}

func (cp *SetConfigParams) validate(p string, st *Step, add addFunc) {
	if len(cp.Config) == 0 {
		add(p+".config", "set-config needs at least one key")
	}
	for k := range cp.Config {
		if strings.TrimSpace(k) == "" {
			add(p+".config", "empty key")
		}
	}
	if st.Target != nil {
		validateTarget(p+".target", st.Target, false, false, add)
	}
}

func (cp *SetConfigParams) build(Step) Fault { return &setConfig{config: cp.Config} }

// setConfig changes topic configs live (for instance
// unclean.leader.election.enable=true while a partition is offline, which
// makes the controller elect a replica outside the ISR). It has no heal:
// a config change is a deliberate act whose effect is the point.
type setConfig struct{ config map[string]*string }

func (f *setConfig) Name() string { return histories.FSetConfig }

func (f *setConfig) Spec() map[string]any { return map[string]any{"config": f.config} }

func (f *setConfig) Inject(ctx context.Context, e *Env) ([]int32, map[string]any, error) {
	set := map[string]any{}
	for _, k := range slices.Sorted(maps.Keys(f.config)) {
		err := e.adminCall(ctx, func(ctx context.Context) error {
			return e.Admin.SetTopicConfig(ctx, e.Topic, k, f.config[k])
		})
		if err != nil {
			return nil, map[string]any{"topic": e.Topic, "config": set}, err
		}
		set[k] = nil // deleted: the broker default applies again
		if v := f.config[k]; v != nil {
			set[k] = *v
		}
	}
	return nil, map[string]any{"topic": e.Topic, "config": set}, nil
}

func (f *setConfig) Heal(context.Context, *Env) error { return nil }
