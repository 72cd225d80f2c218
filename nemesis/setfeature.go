package nemesis

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"errors"
	"github.com/kchaos/kchaos/cluster/admin"
	"github.com/kchaos/kchaos/histories"
)

// setFeatureKind sets feature levels through the admin API: every backend
// can.
var setFeatureKind = Kind{Name: histories.FSetFeature, New: func() Params { return &SetFeatureParams{} },
	LeavesState: "changes the cluster's finalized feature levels",
	Heal:        Instant, Color: "#1f9e9e", LosesAcked: No, MovesLeaders: No, Draw: NotDrawn, Proof: adminProof}

// SetFeatureParams are a set-feature's.
type SetFeatureParams struct {
	// Feature is the finalized feature levels to set, e.g.
	// {eligible.leader.replicas.version: 1}.
	Feature map[string]int16 `yaml:"feature,omitempty"`
}

func (fp *SetFeatureParams) Validate(p string, st *Step, add AddFunc) {
	if len(fp.Feature) == 0 {
		add(p+".feature", "set-feature needs at least one feature, e.g. {eligible.leader.replicas.version: 1}")
	}
	for k, v := range fp.Feature {
		if strings.TrimSpace(k) == "" {
			add(p+".feature", "empty feature name")
		}
		if v < 0 {
			add(p+".feature."+k, "level %d: must not be negative", v)
		}
	}
	if st.Target != nil {
		validateTarget(p+".target", st.Target, false, false, add)
	}
}

func (fp *SetFeatureParams) Build(Step) Fault { return &setFeature{features: fp.Feature} }

// FeatureAdmin is the part of the admin API that reads and sets finalized
// features (KIP-584); *admin.Client implements it. Faults type-assert
// Env.Admin for it, so that fakes without features still serve the rest.
type FeatureAdmin interface {
	FinalizedFeatures(ctx context.Context) (map[string]int16, error)
	SupportedFeatures(ctx context.Context) (map[string]int16, error)
	SetFeature(ctx context.Context, name string, level int16, downgrade bool) error
}

var _ FeatureAdmin = (*admin.Client)(nil)

// featureWait bounds the wait for a feature change to be read back.
const featureWait = 30 * time.Second

// setFeature sets finalized feature levels live (UpdateFeatures, as
// kafka-features upgrade does), or, with finalize, raises
// metadata.version to the highest level the nodes support. The op
// records the finalized levels before and after: the evidence of what is
// on.
type setFeature struct {
	features map[string]int16
	finalize bool
}

func (f *setFeature) Name() string { return histories.FSetFeature }

func (f *setFeature) Spec() map[string]any {
	if f.finalize {
		return map[string]any{"finalize": admin.FeatureMetadataVersion}
	}
	return map[string]any{"feature": f.features}
}

func (f *setFeature) Inject(ctx context.Context, e *Env) ([]int32, map[string]any, error) {
	fa, ok := e.Admin.(FeatureAdmin)
	if !ok {
		return nil, nil, errors.New("the admin client cannot set features")
	}
	var before map[string]int16
	err := e.adminCall(ctx, func(ctx context.Context) (err error) {
		before, err = fa.FinalizedFeatures(ctx)
		return err
	})
	if err != nil {
		return nil, nil, err
	}
	want := maps.Clone(f.features)
	d := map[string]any{"features_before": before}
	if f.finalize {
		sup, err := fa.SupportedFeatures(ctx)
		if err != nil {
			return nil, d, err
		}
		lvl, ok := sup[admin.FeatureMetadataVersion]
		if !ok {
			return nil, d, fmt.Errorf("no node reports a supported %s", admin.FeatureMetadataVersion)
		}
		want = map[string]int16{admin.FeatureMetadataVersion: lvl}
		d["supported"] = sup
	}
	d["set"] = want
	for _, name := range slices.Sorted(maps.Keys(want)) {
		if before[name] == want[name] {
			continue // already there: UpdateFeatures would refuse a no-op upgrade
		}
		err := e.adminCall(ctx, func(ctx context.Context) error {
			return fa.SetFeature(ctx, name, want[name], want[name] < before[name])
		})
		if err != nil {
			return nil, d, err
		}
	}
	after, err := e.readFeatures(ctx, fa, want)
	d["features_after"] = after
	return nil, d, err
}

func (f *setFeature) Heal(context.Context, *Env) error { return nil }

// readFeatures polls the finalized features until every level of want
// reads back (a broker learns it from the metadata log).
func (e *Env) readFeatures(ctx context.Context, fa FeatureAdmin, want map[string]int16) (map[string]int16, error) {
	ctx, cancel := context.WithTimeout(ctx, featureWait)
	defer cancel()
	var last map[string]int16
	var lastErr error
	for {
		got, err := fa.FinalizedFeatures(ctx)
		if err == nil {
			last = got
			ok := true
			for k, v := range want {
				ok = ok && got[k] == v
			}
			if ok {
				return got, nil
			}
		} else {
			lastErr = err
		}
		if sleep(ctx, PollInterval) != nil {
			return last, fmt.Errorf("features %v not read back within %s (read %v, last error %v)", want, featureWait, last, lastErr)
		}
	}
}
